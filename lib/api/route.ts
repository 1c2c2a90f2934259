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

export interface ApiContext {
  access: Access;
  requestId: string;
  params: Record<string, string>;
}

/** Chef Server's error body, plus every violation with its JSON pointer. */
export function errorResponse(status: number, message: string, errors: { path: string; message: string }[] = [], extra?: Record<string, unknown>) {
  return NextResponse.json({ error: [message, ...errors.map((e) => e.message).filter((m) => m !== message)], errors, ...extra }, { status });
}

/** Bearer token first, then the browser session. Null when neither is valid. */
export async function authenticate(req: Request): Promise<Access | null> {
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

/** Wraps an API handler: authentication (401), AppError → Chef-style body, anything else → 500 without internals. */
export function apiRoute(handler: Handler) {
  return async (req: Request, routeCtx: { params: Promise<Record<string, string | string[]>> }) => {
    const requestId = req.headers.get('x-request-id') ?? randomUUID();
    try {
      const access = await authenticate(req);
      if (!access) return errorResponse(401, 'Authentication required: send a valid API token as "Authorization: Bearer <token>", or sign in.');
      const raw = (await routeCtx?.params) ?? {};
      const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, safeDecode(Array.isArray(v) ? v.join('/') : v)]));
      const res = await handler(req, { access, requestId, params });
      res.headers.set('x-request-id', requestId);
      return res;
    } catch (e) {
      const known = asAppError(e);
      if (known) return errorResponse(known.status, known.message, known.errors, known.details);
      console.error(`[api] ${req.method} ${new URL(req.url).pathname} request ${requestId} failed`, e);
      return errorResponse(500, `Internal error (request ${requestId}).`);
    }
  };
}

/** Reads a request body as text, refusing bodies over the configured limit (413). */
export async function readBody(req: Request): Promise<string> {
  const limit = bodyLimit();
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > limit) throw new AppError('too_large', `Request body is ${declared} bytes; the limit is ${limit} bytes (MAX_BODY_BYTES).`);
  const text = await req.text();
  const size = Buffer.byteLength(text);
  if (size > limit) throw new AppError('too_large', `Request body is ${size} bytes; the limit is ${limit} bytes (MAX_BODY_BYTES).`);
  return text;
}

export function bodyLimit(): number {
  const n = Number(process.env.MAX_BODY_BYTES);
  return Number.isFinite(n) && n > 0 ? n : 8 * 1024 * 1024;
}

/** Parses a JSON body into a plain value (objects of any shape); 400 naming the problem otherwise. */
export async function readJson(req: Request): Promise<unknown> {
  const text = await readBody(req);
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
export async function readLosslessJsonObject(req: Request, maxDepth = 64): Promise<Record<string, unknown>> {
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

