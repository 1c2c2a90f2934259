import 'server-only';
import { jsonDepth, parseLossless } from '@/lib/domain';
import { randomUUID } from 'node:crypto';
import { NextResponse } from 'next/server';
import { currentAccess } from '@/lib/auth/session';
import type { Access } from '@/lib/auth/permissions';
import { hashToken } from '@/lib/auth/tokens';
import { loadAccess } from '@/lib/db/queries/access';
import { userIdForToken } from '@/lib/db/queries/tokens';
import { AppError, asAppError } from '@/lib/errors';
import { authenticateSigned } from '@/lib/chef/authn';
import { hasChefSignature } from '@/lib/chef/signing';
import { crossSiteRefusal } from './csrf';
import { noteActor } from '@/lib/ops/request-context';
import { ENVELOPE_DEPTH, MAX_DEPTH, maxDocumentBytes } from '@/lib/services/internal/limits';

export interface ApiContext {
  access: Access;
  requestId: string;
  params: Record<string, string>;
}

/** Chef Server's error body, plus every violation with its JSON pointer. */
export function errorResponse(status: number, message: string, errors: { path: string; message: string }[] = [], extra?: Record<string, unknown>) {
  return NextResponse.json({ error: [message, ...errors.map((e) => e.message).filter((m) => m !== message)], errors, ...extra }, { status });
}

/** A Chef signature (X-Ops-* headers, as knife signs), then a bearer token, then the browser session. Null when none is valid. */
export async function authenticate(req: Request): Promise<Access | null> {
  if (hasChefSignature((h) => req.headers.get(h))) {
    const body = new Uint8Array(await req.clone().arrayBuffer());
    const signed = await authenticateSigned({ method: req.method, path: new URL(req.url).pathname, header: (h) => req.headers.get(h), body });
    // Clients are machine identities with Chef-surface rights only: the console API is for people.
    return signed.ok && signed.requestor.kind === 'user' ? signed.requestor.access : null;
  }
  const header = req.headers.get('authorization');
  if (header) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) return null;
    const userId = await userIdForToken(hashToken(m[1]));
    return userId ? loadAccess(userId) : null;
  }
  return currentAccess();
}

/** A malformed escape (a stray '%') is kept as written, so validation can name it instead of a 500. */
function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

type Handler = (req: Request, ctx: ApiContext) => Promise<Response>;

/** The caller's X-Request-Id, kept to safe characters and 100 of them (what audit events store); a fresh id otherwise. Never a reason to refuse (issue 17, item 23). */
export function requestIdFrom(req: Request): string {
  const given = (req.headers.get('x-request-id') ?? '').replace(/[^\w.:@\/+=-]/g, '').slice(0, 100);
  return given || randomUUID();
}

/** Wraps an API handler: authentication (401), AppError → Chef-style body, anything else → 500 without internals. */
export function apiRoute(handler: Handler) {
  return async (req: Request, routeCtx: { params: Promise<Record<string, string | string[]>> }) => {
    const requestId = requestIdFrom(req);
    try {
      const refusal = crossSiteRefusal(req);
      if (refusal) return errorResponse(403, refusal);
      const access = await authenticate(req);
      if (!access) return errorResponse(401, 'Authentication required: send a valid API token as "Authorization: Bearer <token>", or sign in.');
      // For the request log: who is asking, and how.
      noteActor(access.userId, access.via ?? (req.headers.has('authorization') ? 'token' : 'session'), req.headers);
      const raw = (await routeCtx?.params) ?? {};
      const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, safeDecode(Array.isArray(v) ? v.join('/') : v)]));
      const res = await handler(req, { access, requestId, params });
      res.headers.set('x-request-id', requestId);
      return res;
    } catch (e) {
      const known = asAppError(e);
      if (known) {
        const res = errorResponse(known.status, known.message, known.errors, known.details);
        const retryAfter = known.details?.retryAfter;
        if (typeof retryAfter === 'number') res.headers.set('retry-after', String(retryAfter));
        res.headers.set('x-request-id', requestId);
        return res;
      }
      console.error(`[api] ${req.method} ${new URL(req.url).pathname} request ${requestId} failed`, e);
      return errorResponse(500, `Internal error (request ${requestId}).`);
    }
  };
}

/**
 * Reads a request body as text, refusing bodies over the limit (413). Counted
 * while streaming, so a chunked body without Content-Length is cut off at the
 * limit instead of being read whole first (issue 17, item 12).
 */
export async function readBody(req: Request, limit = bodyLimit()): Promise<string> {
  const declared = Number(req.headers.get('content-length') ?? '0');
  const tooLarge = (size: number | string) => new AppError('too_large', `Request body is ${size} bytes; the limit is ${limit} bytes (MAX_BODY_BYTES).`);
  if (declared > limit) throw tooLarge(declared);
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(`more than ${limit}`);
    }
    chunks.push(value);
  }
  // TextDecoder, as Request.text() does (a leading BOM is dropped).
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The request body limit: the same number that bounds stored documents (MAX_BODY_BYTES, default 8 MiB). */
export function bodyLimit(): number {
  return maxDocumentBytes();
}

/** Parses a JSON body into a plain value (objects of any shape); 400 naming the problem otherwise. */
export async function readJson(req: Request, limit?: number): Promise<unknown> {
  const text = await readBody(req, limit);
  // Checked on the text, before anything recursive sees the value (issue 17, item 8).
  if (jsonDepth(text, MAX_DEPTH + ENVELOPE_DEPTH) > MAX_DEPTH + ENVELOPE_DEPTH) {
    throw new AppError('bad_request', `Request body nests deeper than ${MAX_DEPTH + ENVELOPE_DEPTH} levels`, [{ path: '', message: 'nested too deeply' }]);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError('bad_request', `Request body is not valid JSON: ${(e as Error).message}`, [{ path: '', message: 'Body must be valid JSON' }]);
  }
}

/** A JSON body that must be an object (every write endpoint's body). */
export async function readJsonObject(req: Request): Promise<Record<string, unknown>> {
  const body = await readJson(req);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AppError('bad_request', 'Body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  return body as Record<string, unknown>;
}

/**
 * A JSON object body parsed losslessly (number lexemes and key order kept, domain `parseLossless`), for
 * endpoints whose input ends up in a lock: a parent's `1.0e+15` must stay a float, `"10"` must stay after `"2"`.
 */
export async function readLosslessJsonObject(req: Request, maxDepth = MAX_DEPTH + ENVELOPE_DEPTH): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  if (jsonDepth(text, maxDepth) > maxDepth) throw new AppError('bad_request', `Request body nests deeper than ${maxDepth} levels`, [{ path: '', message: `Nesting deeper than ${maxDepth} levels is refused` }]);
  let body: unknown;
  try {
    body = parseLossless(text);
  } catch (e) {
    throw new AppError('bad_request', `Request body is not valid JSON: ${(e as Error).message}`, [{ path: '', message: 'Body must be valid JSON' }]);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AppError('bad_request', 'Body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  return body as Record<string, unknown>;
}

