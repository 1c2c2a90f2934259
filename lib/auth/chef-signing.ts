/**
 * Chef's request signing (mixlib-authentication), both sides: what chef-cli,
 * knife and chef-client send, and how Chef Server (erchef's chef_authn)
 * verifies it. Protocols 1.0 and 1.1 sign a canonical string with RSA PKCS#1
 * v1.5 "private encrypt" (no DigestInfo); 1.3 signs it with RSA-SHA256.
 * No I/O: key lookup belongs to the caller.
 */
import { createHash, createPrivateKey, createPublicKey, privateEncrypt, publicDecrypt, constants, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { Transform } from 'node:stream';
import { AppError } from '@/lib/errors';
import { processState } from '@/lib/process-state';

export type SignProtocol = '1.0' | '1.1' | '1.3';
export const SIGN_PROTOCOLS: readonly SignProtocol[] = ['1.0', '1.1', '1.3'];
const DIGEST: Record<SignProtocol, 'sha1' | 'sha256'> = { '1.0': 'sha1', '1.1': 'sha1', '1.3': 'sha256' };

/** Chef Server refuses requests whose timestamp is further than this from its clock (erchef's auth_skew). */
export const MAX_CLOCK_SKEW_SECONDS = 15 * 60;

export interface CanonicalInput {
  method: string;
  /** The URL path as the client sent it, without the query string. */
  path: string;
  /** base64 digest of the raw body (X-Ops-Content-Hash). */
  contentHash: string;
  timestamp: string;
  userId: string;
  /** X-Ops-Server-API-Version as sent (1.3 only); '0' when absent. */
  apiVersion?: string;
}

/** Slashes collapsed, a trailing slash dropped (mixlib's canonical_path). */
export function canonicalPath(path: string): string {
  const p = path.replace(/\/+/g, '/');
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

function b64digest(algorithm: 'sha1' | 'sha256', data: string | Uint8Array): string {
  return createHash(algorithm).update(data).digest('base64');
}

/** Process state (lib/process-state.ts): one memo for the server's copy of this module and Next's. */
const nameDigests = processState('chef.signing.name-digests', () => new Map<string, string>());

/** b64digest of a path or a user id, remembered: every request of a node signs the same few of each. */
function nameDigest(algorithm: 'sha1' | 'sha256', name: string): string {
  if (name.length > 512) return b64digest(algorithm, name);
  const k = algorithm + name;
  let d = nameDigests.get(k);
  if (d === undefined) {
    d = b64digest(algorithm, name);
    if (nameDigests.size >= 10_000) nameDigests.clear();
    nameDigests.set(k, d);
  }
  return d;
}

/**
 * Issue 46: the body of a streamed cookbook file upload, not read when the signature is verified: the signature is
 * checked over the X-Ops-Content-Hash the client sent, and the body against it as it streams (contentHashCheck).
 */
export const STREAMED_BODY: unique symbol = Symbol('streamed body');

/** A Transform passing a streamed body through and failing at its end unless its digest is `contentHash`. */
export function contentHashCheck(protocol: SignProtocol, contentHash: string): Transform {
  const h = createHash(DIGEST[protocol]);
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      h.update(chunk);
      cb(null, chunk);
    },
    flush(cb) {
      const got = h.digest('base64');
      cb(got === contentHash ? null : new AppError('unauthorized', 'The uploaded body does not match its X-Ops-Content-Hash: the request signature does not cover it.'));
    },
  });
}

/** X-Ops-Content-Hash for a body under a protocol. */
export function hashBody(protocol: SignProtocol, body: string | Uint8Array): string {
  return b64digest(DIGEST[protocol], body);
}

/** The string the client signs. */
export function canonicalRequest(protocol: SignProtocol, r: CanonicalInput): string {
  const digest = DIGEST[protocol];
  const path = canonicalPath(r.path);
  if (protocol === '1.3') {
    return [
      `Method:${r.method.toUpperCase()}`,
      `Path:${path}`,
      `X-Ops-Content-Hash:${r.contentHash}`,
      `X-Ops-Sign:version=1.3`,
      `X-Ops-Timestamp:${r.timestamp}`,
      `X-Ops-UserId:${r.userId}`,
      `X-Ops-Server-API-Version:${r.apiVersion ?? '0'}`,
    ].join('\n');
  }
  return [
    `Method:${r.method.toUpperCase()}`,
    `Hashed Path:${nameDigest(digest, path)}`,
    `X-Ops-Content-Hash:${r.contentHash}`,
    `X-Ops-Timestamp:${r.timestamp}`,
    `X-Ops-UserId:${protocol === '1.1' ? nameDigest(digest, r.userId) : r.userId}`,
  ].join('\n');
}

/** The signing headers as a client sends them (used by tests, benchmarks and scripts). */
export function signRequest(opts: {
  protocol?: SignProtocol;
  method: string;
  path: string;
  body?: string | Uint8Array;
  userId: string;
  privateKey: string | KeyObject;
  timestamp?: string;
  apiVersion?: string | null;
}): Record<string, string> {
  const protocol = opts.protocol ?? '1.1';
  const timestamp = opts.timestamp ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const contentHash = hashBody(protocol, opts.body ?? '');
  const apiVersion = opts.apiVersion === null ? undefined : (opts.apiVersion ?? '2');
  const canonical = canonicalRequest(protocol, { method: opts.method, path: opts.path, contentHash, timestamp, userId: opts.userId, apiVersion: apiVersion ?? '0' });
  const key = typeof opts.privateKey === 'string' ? createPrivateKey(opts.privateKey) : opts.privateKey;
  const signature =
    protocol === '1.3'
      ? cryptoSign('sha256', Buffer.from(canonical), key)
      : privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(canonical));
  const headers: Record<string, string> = {
    'X-Ops-Sign': `algorithm=${DIGEST[protocol]};version=${protocol};`,
    'X-Ops-Userid': opts.userId,
    'X-Ops-Timestamp': timestamp,
    'X-Ops-Content-Hash': contentHash,
  };
  if (apiVersion !== undefined) headers['X-Ops-Server-API-Version'] = apiVersion;
  const lines = signature.toString('base64').match(/.{1,60}/g) ?? [];
  lines.forEach((line, i) => (headers[`X-Ops-Authorization-${i + 1}`] = line));
  return headers;
}

/** The signing headers of a request, parsed; what is missing or malformed is a refusal. */
export type ParsedSignature =
  | { ok: true; protocol: SignProtocol; userId: string; timestamp: string; contentHash: string; signature: Buffer; apiVersion: string | undefined }
  | { ok: false; status: 400 | 401; message: string };

const REQUIRED = ['X-Ops-UserId', 'X-Ops-Timestamp', 'X-Ops-Sign', 'X-Ops-Content-Hash', 'X-Ops-Authorization-1'];

/** True when a request carries any Chef signing header (then it must be a valid signed request). */
export function hasChefSignature(get: (name: string) => string | null | undefined): boolean {
  return !!(get('x-ops-userid') || get('x-ops-sign') || get('x-ops-authorization-1'));
}

/** Reads and checks the headers the way chef_authn:validate_headers does (clock skew included). */
export function parseSignedHeaders(get: (name: string) => string | null | undefined, now: Date = new Date()): ParsedSignature {
  const missing = REQUIRED.filter((h) => !get(h.toLowerCase()));
  if (missing.length) return { ok: false, status: 401, message: `missing required authentication header(s) ${missing.join(', ')}` };
  const userId = get('x-ops-userid')!;
  const desc = Object.fromEntries(
    get('x-ops-sign')!
      .split(';')
      .map((p) => p.split('=').map((s) => s.trim()))
      .filter((kv) => kv[0])
      .map(([k, v]) => [k, v ?? '']),
  );
  const protocol = (desc.version ?? '1.0') as SignProtocol;
  if (!SIGN_PROTOCOLS.includes(protocol) || (desc.algorithm && desc.algorithm !== DIGEST[protocol])) {
    return { ok: false, status: 400, message: 'Unsupported authentication protocol version' };
  }
  const timestamp = get('x-ops-timestamp')!;
  const at = Date.parse(timestamp);
  if (!Number.isFinite(at)) return { ok: false, status: 401, message: `bad header(s) X-Ops-Timestamp` };
  if (Math.abs(now.getTime() - at) > MAX_CLOCK_SKEW_SECONDS * 1000) {
    return { ok: false, status: 401, message: `Failed to authenticate as ${userId}. Synchronize the clock on your host.` };
  }
  let sig = '';
  for (let i = 1; ; i++) {
    const line = get(`x-ops-authorization-${i}`);
    if (!line) break;
    sig += line;
  }
  return {
    ok: true,
    protocol,
    userId,
    timestamp,
    contentHash: get('x-ops-content-hash')!,
    signature: Buffer.from(sig, 'base64'),
    apiVersion: get('x-ops-server-api-version') ?? undefined,
  };
}

/** Process state, like nameDigests. */
const keyCache = processState('chef.signing.public-keys', () => new Map<string, KeyObject>());

/** A parsed public key, cached by its PEM (keys are parsed once, not per request). */
export function publicKeyObject(pem: string): KeyObject {
  let k = keyCache.get(pem);
  if (!k) {
    k = createPublicKey(pem);
    if (keyCache.size > 5000) keyCache.clear();
    keyCache.set(pem, k);
  }
  return k;
}

/** Verifies a parsed signature for a request with `body` against one public key. */
export function verifySignature(sig: Extract<ParsedSignature, { ok: true }>, req: { method: string; path: string; body: string | Uint8Array | typeof STREAMED_BODY }, publicKeyPem: string): boolean {
  if (req.body !== STREAMED_BODY && hashBody(sig.protocol, req.body) !== sig.contentHash) return false;
  const canonical = canonicalRequest(sig.protocol, {
    method: req.method,
    path: req.path,
    contentHash: sig.contentHash,
    timestamp: sig.timestamp,
    userId: sig.userId,
    apiVersion: sig.apiVersion ?? '0',
  });
  let key: KeyObject;
  try {
    key = publicKeyObject(publicKeyPem);
  } catch {
    return false;
  }
  try {
    if (sig.protocol === '1.3') return cryptoVerify('sha256', Buffer.from(canonical), key, sig.signature);
    // Raw RSA, then the PKCS#1 v1.5 type 1 padding checked here: with another
    // user's key OpenSSL's padding check would throw, and exceptions are slow
    // (a user may have several keys, each tried in turn).
    const size = (key.asymmetricKeyDetails?.modulusLength ?? 0) / 8;
    if (sig.signature.length !== size) return false;
    const block = publicDecrypt({ key, padding: constants.RSA_NO_PADDING }, sig.signature);
    const data = Buffer.from(canonical);
    const sep = block.length - data.length - 1;
    if (block[0] !== 0 || block[1] !== 1 || sep < 10 || block[sep] !== 0) return false;
    for (let i = 2; i < sep; i++) if (block[i] !== 0xff) return false;
    return block.subarray(sep + 1).equals(data);
  } catch {
    return false;
  }
}
