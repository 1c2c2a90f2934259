/**
 * Chef request signing against vectors signed by Ruby's mixlib-authentication
 * (the library knife, chef-cli and chef-client sign with): each verifies, and
 * a tampered path, body, timestamp or user, another key, or a skewed clock,
 * does not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalPath, hashBody, parseSignedHeaders, signRequest, verifySignature, type SignProtocol } from './chef-signing';

const dir = path.resolve(import.meta.dirname, '../../test/fixtures/chef-signing');
const publicKey = fs.readFileSync(path.join(dir, 'key.pub'), 'utf8');
const { vectors } = JSON.parse(fs.readFileSync(path.join(dir, 'vectors.json'), 'utf8')) as {
  vectors: { protocol: SignProtocol; method: string; path: string; body: string; user_id: string; timestamp: string; api_version: string; headers: Record<string, string> }[];
};
const AT = new Date('2026-11-20T12:05:00Z');
const ours = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });

function getter(headers: Record<string, string>) {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return (name: string) => lower[name.toLowerCase()];
}

function check(v: (typeof vectors)[number], change: Partial<{ method: string; path: string; body: string; headers: Record<string, string> }> = {}, key = publicKey, now = AT) {
  const headers = { ...v.headers, 'X-Ops-Server-API-Version': v.api_version, ...change.headers };
  const sig = parseSignedHeaders(getter(headers), now);
  if (!sig.ok) return sig;
  return { ok: verifySignature(sig, { method: change.method ?? v.method, path: change.path ?? v.path, body: change.body ?? v.body }, key) };
}

describe('vectors from mixlib-authentication', () => {
  it('cover protocols 1.0, 1.1 and 1.3', () => expect(new Set(vectors.map((v) => v.protocol))).toEqual(new Set(['1.0', '1.1', '1.3'])));

  it.each(vectors.map((v) => [`${v.protocol} ${v.method} ${v.path}`, v] as const))('%s verifies', (_n, v) => {
    expect(check(v)).toEqual({ ok: true });
  });

  it.each(vectors.map((v) => [`${v.protocol} ${v.method} ${v.path}`, v] as const))('%s: our signer produces the same content hash and verifiable headers', (_n, v) => {
    expect(hashBody(v.protocol, v.body)).toBe(v.headers['X-Ops-Content-Hash']);
    const signed = signRequest({ protocol: v.protocol, method: v.method, path: v.path, body: v.body, userId: v.user_id, privateKey: ours.privateKey, timestamp: v.timestamp, apiVersion: v.api_version });
    expect(signed['X-Ops-Sign']).toBe(v.headers['X-Ops-Sign']);
    expect(Object.keys(signed).filter((k) => k.startsWith('X-Ops-Authorization-')).length).toBe(Object.keys(v.headers).filter((k) => k.startsWith('X-Ops-Authorization-')).length);
    expect(check({ ...v, headers: signed }, {}, ours.publicKey)).toEqual({ ok: true });
  });

  it.each(vectors.map((v) => [`${v.protocol} ${v.method} ${v.path}`, v] as const))('%s: a tampered path, body, method or timestamp fails', (_n, v) => {
    expect(check(v, { path: v.path + 'x' })).toEqual({ ok: false });
    expect(check(v, { body: v.body + ' ' })).toEqual({ ok: false });
    expect(check(v, { method: v.method === 'GET' ? 'DELETE' : 'GET' })).toEqual({ ok: false });
    expect(check(v, { headers: { 'X-Ops-Timestamp': '2026-11-20T12:00:01Z' } })).toEqual({ ok: false });
  });

  it.each(vectors.map((v) => [`${v.protocol} ${v.method} ${v.path}`, v] as const))('%s: another key or another user fails', (_n, v) => {
    expect(check(v, {}, ours.publicKey)).toEqual({ ok: false });
    expect(check(v, { headers: { 'X-Ops-Userid': 'admin' } })).toEqual({ ok: false });
  });

  it('a skewed clock is refused with Chef\'s message, 15 minutes either way', () => {
    const v = vectors[0];
    expect(check(v, {}, publicKey, new Date('2026-11-20T12:14:59Z'))).toEqual({ ok: true });
    expect(check(v, {}, publicKey, new Date('2026-11-20T12:15:01Z'))).toEqual({ ok: false, status: 401, message: 'Failed to authenticate as release. Synchronize the clock on your host.' });
    expect(check(v, {}, publicKey, new Date('2026-11-20T11:44:59Z'))).toMatchObject({ ok: false, status: 401 });
  });

  it('missing headers and unknown protocols are refused', () => {
    const v = vectors[0];
    const { ['X-Ops-Content-Hash']: _h, ...rest } = v.headers;
    expect(parseSignedHeaders(getter(rest), AT)).toEqual({ ok: false, status: 401, message: 'missing required authentication header(s) X-Ops-Content-Hash' });
    expect(parseSignedHeaders(getter({ ...v.headers, 'X-Ops-Sign': 'algorithm=sha1;version=1.2;' }), AT)).toEqual({ ok: false, status: 400, message: 'Unsupported authentication protocol version' });
    expect(parseSignedHeaders(getter({ ...v.headers, 'X-Ops-Sign': 'algorithm=sha256;version=1.1;' }), AT)).toMatchObject({ ok: false, status: 400 });
  });
});

describe('canonical path', () => {
  it('collapses slashes and drops a trailing one, as mixlib does', () => {
    expect(canonicalPath('/organizations/console//nodes/web-01/')).toBe('/organizations/console/nodes/web-01');
    expect(canonicalPath('/')).toBe('/');
  });
});
