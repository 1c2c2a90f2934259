import 'server-only';
import { z } from 'zod';
import { jsonDepth, parseLossless } from '@/lib/domain';
import { NextResponse } from 'next/server';
import { can, refusal, type Access } from '@/lib/auth/permissions';
import { AppError, asAppError } from '@/lib/errors';
import { authenticate as authenticateCaller } from '@/lib/authn';
import { currentAccess } from '@/lib/authn/session';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { hasChefSignature } from '@/lib/auth/chef-signing';
import { crossSiteRefusal } from './csrf';
import { noteActor } from '@/lib/ops/request-context';
import { requestIdFrom as requestIdOf } from '@/lib/ops/request-id';
import { ENVELOPE_DEPTH, MAX_DEPTH, maxDocumentBytes } from '@/lib/validation/limits';
import { zodErrors } from '@/lib/validation/zod-errors';
import type { BodyOf, PathInputOf, QueryOf, RouteContract } from './contract';

export interface ApiContext {
  access: Access;
  requestId: string;
  params: Record<string, string>;
}

/** Chef Server's error body, plus every violation with its JSON pointer. */
export function errorResponse(status: number, message: string, errors: { path: string; message: string }[] = [], extra?: Record<string, unknown>) {
  return NextResponse.json({ error: [message, ...errors.map((e) => e.message).filter((m) => m !== message)], errors, ...extra }, { status });
}

/**
 * Who calls the console API, authenticated once (lib/authn): a Chef signature (X-Ops-* headers, as knife
 * signs), else a bearer token, else the browser session. Null when none is valid, and for Chef clients:
 * machine identities with Chef-surface rights only; the console API is for people. While /api/v1 is served
 * by Next, the session is Next's (lib/authn/session.ts: it renews the cookie as pages do); on the node:http
 * front the same order takes `['signature', 'bearer', 'session']` (docs/architecture.md 8).
 */
export async function authenticate(req: Request): Promise<Access | null> {
  const header = (h: string) => req.headers.get(h);
  // Only a signed request's body is read here (its signature hashes it); the handler reads its own copy.
  const body = hasChefSignature(header) ? new Uint8Array(await req.clone().arrayBuffer()) : new Uint8Array();
  const auth = await authenticateCaller({ method: req.method, path: new URL(req.url).pathname, header, body }, { id: HOME_ORG_ID }, ['signature', 'bearer']);
  const actor = auth.ok ? auth.actor : auth.status === 0 ? await currentAccess() : null;
  return actor?.kind === 'user' ? actor : null;
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

/** What a contract-bound handler receives: the caller, the decoded path parameters, and the query and body parsed by the contract. */
export interface ContractContext<C extends RouteContract> extends ApiContext {
  query: QueryOf<C>;
  body: BodyOf<C>;
  /** The service input fields the contract's `pathInput` takes from the path, parsed by their field rules. */
  input: PathInputOf<C>;
  /** The raw body text (contracts with `bodyKind: 'text'`; empty otherwise). */
  text: string;
  /** The body as read, before the schema (lossless bodies: key order and number lexemes the schema's output does not keep). */
  raw: unknown;
}

/** A public route's context: no caller identity. */
export type PublicContext<C extends RouteContract> = Omit<ContractContext<C>, 'access'>;

const UNAUTHENTICATED = 'Authentication required: send a valid API token as "Authorization: Bearer <token>", or sign in.';

/** 401 with the API's body (shared by every authentication path, the node fast path included). */
export const unauthenticated = () => errorResponse(401, UNAUTHENTICATED);

type RouteCtx = { params: Promise<Record<string, string | string[]>> };

/**
 * The one wrapper every /api/v1 handler goes through: request id on every answer (errors too),
 * cross-site refusal, decoded path parameters (a malformed escape is kept as written, so lookups
 * answer 404), expected failures as the Chef-style body, anything else a 500 without internals.
 * `authenticate` is what the route needs of the caller: null answers 401.
 */
function wrap<A>(authenticateCaller: (req: Request) => Promise<A | null>, userOf: (caller: A) => Access | null, run: (req: Request, caller: A, requestId: string, params: Record<string, string>) => Promise<Response>) {
  return async (req: Request, routeCtx: RouteCtx): Promise<Response> => {
    const requestId = requestIdOf(req.headers.get('x-request-id'));
    const withId = (res: Response) => {
      res.headers.set('x-request-id', requestId);
      return res;
    };
    try {
      const crossSite = crossSiteRefusal(req);
      if (crossSite) return withId(errorResponse(403, crossSite));
      const caller = await authenticateCaller(req);
      if (caller === null) return withId(unauthenticated());
      // For the request log: who is asking, and how.
      const who = userOf(caller);
      if (who) noteActor(who.userId, who.via ?? 'session', req.headers);
      // Issue 23: /api/v1 is the home organization's: a user who is not a member (and not an administrator, Chef's
      // superuser) is refused every route, as the Chef router refuses them every organization route (one rule, in can()).
      if (who && !can(who, 'org.access')) return withId(errorResponse(403, refusal('org.access', {}, who)));
      const raw = (await routeCtx?.params) ?? {};
      const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, safeDecode(Array.isArray(v) ? v.join('/') : v)]));
      return withId(await run(req, caller, requestId, params));
    } catch (e) {
      const known = asAppError(e);
      if (known) {
        const res = errorResponse(known.status, known.message, known.errors, known.details);
        const retryAfter = known.details?.retryAfter;
        if (typeof retryAfter === 'number') res.headers.set('retry-after', String(retryAfter));
        return withId(res);
      }
      console.error(`[api] ${req.method} ${new URL(req.url).pathname} request ${requestId} failed`, e);
      return withId(errorResponse(500, `Internal error (request ${requestId}).`));
    }
  };
}

/** Parses a value with a route schema; a 400 whose pointers name the fields as the client sent them. */
function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: 'query' | 'body'): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors = zodErrors(parsed.error);
  throw new AppError('bad_request', where === 'query' ? `Query parameter ${errors[0].message.replace(/^body /, '')}` : errors[0].message, errors);
}

/** Reads and parses the query and body a contract declares. */
async function parseRequest<C extends RouteContract>(contract: C, req: Request, params: Record<string, string>): Promise<{ query: QueryOf<C>; body: BodyOf<C>; input: PathInputOf<C>; text: string; raw: unknown }> {
  const url = new URL(req.url);
  const query = (contract.query ? parseWith(contract.query, Object.fromEntries(url.searchParams), 'query') : {}) as QueryOf<C>;
  let body: unknown = undefined;
  let text = '';
  const kind = contract.bodyKind ?? (contract.body ? 'json' : undefined);
  if (kind === 'text') text = await readBody(req, contract.bodyLimit);
  else if (kind === 'lossless') body = await readLosslessJsonObject(req);
  else if (kind === 'json') body = await readJson(req, contract.bodyLimit);
  const raw = body;
  if (contract.body) body = parseWith(contract.body, body, 'body');
  const input: Record<string, unknown> = {};
  for (const f of contract.pathInput?.fields ?? []) input[f.field] = parseWith(z.object({ [f.field]: f.schema }), { [f.field]: params[f.param] }, 'body')[f.field];
  return { query, body: body as BodyOf<C>, input: input as PathInputOf<C>, text, raw };
}

/**
 * Wraps an API handler (see `wrap`). With a contract, the query and body are parsed by its
 * snake_case schemas before the handler runs, and the OpenAPI document describes the route from it.
 */
export function apiRoute(handler: Handler): (req: Request, routeCtx: RouteCtx) => Promise<Response>;
export function apiRoute<C extends RouteContract>(contract: C, handler: (req: Request, ctx: ContractContext<C>) => Promise<Response>): (req: Request, routeCtx: RouteCtx) => Promise<Response>;
export function apiRoute<C extends RouteContract>(a: Handler | C, b?: (req: Request, ctx: ContractContext<C>) => Promise<Response>) {
  if (typeof a === 'function') return wrap(authenticate, (access) => access, (req, access, requestId, params) => a(req, { access, requestId, params }));
  const contract = a;
  const rename = clientFieldNames(contract);
  return wrap(authenticate, (access) => access, async (req, access, requestId, params) => {
    const parsed = await parseRequest(contract, req, params);
    try {
      return await b!(req, { access, requestId, params, ...parsed });
    } catch (e) {
      throw rename(e);
    }
  });
}

/** The keys of an object schema, through `.transform`/`.pipe`, `.strict()` and refinements; [] for anything else. */
function objectKeys(schema: z.ZodType | undefined): string[] {
  let s = schema as { _zod?: { def: { type: string; in?: unknown; shape?: Record<string, unknown> } } } | undefined;
  for (let i = 0; s?._zod && i < 5; i++) {
    const def = s._zod.def;
    if (def.type === 'object') return Object.keys(def.shape ?? {});
    if (def.type === 'pipe') s = def.in as typeof s;
    else return [];
  }
  return [];
}

const camel = (k: string) => k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * Services name their input fields in camelCase; a contract's body names them as the client sent
 * them (snake_case). Input rules are checked at the edge under the client's names (`wireBody`); what
 * remains here is for the rules that need the database (a rollback target the stage never held:
 * `/toRevisionId`, answered at `/to_revision_id`) and for bodies not yet derived from their service's
 * schema (compose), so the pointer always names a field of the request.
 */
function clientFieldNames(contract: RouteContract): (e: unknown) => unknown {
  const map = new Map(objectKeys(contract.body).filter((k) => camel(k) !== k).map((k) => [camel(k), k]));
  if (!map.size) return (e) => e;
  return (e) => {
    if (!(e instanceof AppError) || !e.errors.some((f) => map.has(firstToken(f.path)))) return e;
    const errors = e.errors.map((f) => {
      const token = firstToken(f.path);
      return map.has(token) ? { ...f, path: '/' + map.get(token)! + f.path.slice(1 + token.length) } : f;
    });
    const renamed = new AppError(e.code, e.message, errors, e.details);
    renamed.stack = e.stack;
    return renamed;
  };
}

const firstToken = (pointer: string) => (pointer.startsWith('/') ? pointer.slice(1).split('/')[0] : '');

/** A route anyone may call (the contract says `auth: 'public'`): the same wrapper without authentication. */
export function publicRoute<C extends RouteContract>(contract: C, handler: (req: Request, ctx: PublicContext<C>) => Promise<Response>) {
  if (contract.auth !== 'public') throw new Error(`${contract.method} ${contract.path}: publicRoute needs a contract with auth: 'public'`);
  return wrap(async () => true, () => null, async (req, _caller, requestId, params) => handler(req, { requestId, params, ...(await parseRequest(contract, req, params)) }));
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

