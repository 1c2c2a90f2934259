/**
 * The /api/v1 envelope, framework-free (issue 44 step 4, issue 49): what every contract's handler goes through,
 * whoever calls it (the node:http front through lib/api/http.ts, tests through `handleApi`). In order: the
 * request id on every answer (errors too), cross-site refusal, authentication (Chef signature, bearer token or
 * the session cookie; Chef clients refused), membership of the home organization (`org.access`), the
 * contract's query, body and path input parsed under the client's field names, the handler, and expected
 * failures as the API's Chef-style body (anything else a 500 without internals).
 */
import { z } from 'zod';
import { jsonDepth, parseLossless } from '@/lib/domain';
import { can, refusal, type Access } from '@/lib/auth/permissions';
import { AppError, asAppError } from '@/lib/errors';
import { authenticate as authenticateCaller } from '@/lib/authn';
import { hasChefSignature } from '@/lib/auth/chef-signing';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { noteActor } from '@/lib/ops/request-context';
import { ENVELOPE_DEPTH, MAX_DEPTH, maxDocumentBytes } from '@/lib/validation/limits';
import { zodErrors } from '@/lib/validation/zod-errors';
import { crossSiteRefusal } from './csrf';
import { requestIdFrom } from '@/lib/ops/request-id';
import type { BodyOf, PathInputOf, QueryOf, RouteContract } from './contract';

/** A request as the envelope sees it: what the node adapter (or a test) hands over. */
export interface ApiRequest {
  method: string;
  /** The path as sent (still %-encoded), without the query. */
  path: string;
  query: URLSearchParams;
  /** A header by lower-case name (repeated headers joined with ", "). */
  header(name: string): string | undefined;
  /** The body, read at most once; past `limit` bytes a 413 (`tooLarge`). Empty when none was sent. */
  body(limit: number): Promise<Uint8Array>;
  /** The origin the caller addressed (`http://host:port`), for the cross-site check. */
  origin: string;
}

/** What a handler answers: JSON (serialised here), or raw text or bytes with the handler's content type. */
export type ApiResult = { status: number; headers?: Record<string, string> } & ({ json: unknown } | { raw: string | Uint8Array });

/** The answer written to the wire. */
export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

type Init = { status?: number; headers?: Record<string, string> };

/** A JSON answer (200 unless `init.status`), as `Response.json` builds it. */
export const json = (body: unknown, init: Init = {}): ApiResult => ({ status: init.status ?? 200, headers: init.headers, json: body });

/** A raw answer: the text or bytes as given, with the content type in `init.headers`. */
export const raw = (body: string | Uint8Array, init: Init = {}): ApiResult => ({ status: init.status ?? 200, headers: init.headers, raw: body });

/** Chef Server's error body, plus every violation with its JSON pointer. */
export function errorResult(status: number, message: string, errors: { path: string; message: string }[] = [], extra?: Record<string, unknown>): ApiResult {
  return json({ error: [message, ...errors.map((e) => e.message).filter((m) => m !== message)], errors, ...extra }, { status });
}

/** 413: the body is over the limit (`size`: the declared length, or "more than <limit>" while counting). */
export function tooLarge(size: number | string, limit: number): AppError {
  return new AppError('too_large', `Request body is ${size} bytes; the limit is ${limit} bytes (MAX_BODY_BYTES).`);
}

/** The request body limit: the same number that bounds stored documents (MAX_BODY_BYTES, default 8 MiB). */
export function bodyLimit(): number {
  return maxDocumentBytes();
}

export interface ApiContext {
  access: Access;
  requestId: string;
  params: Record<string, string>;
}

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

/** A row of the route table: a contract and what runs it (path parameters decoded by the router). */
export interface ApiRoute {
  contract: RouteContract;
  run(req: ApiRequest, params: Record<string, string>): Promise<ApiAnswer>;
}

const UNAUTHENTICATED = 'Authentication required: send a valid API token as "Authorization: Bearer <token>", or sign in.';

/**
 * Who calls the console API, authenticated once: a Chef signature (X-Ops-* headers, as knife signs), else a
 * bearer token, else the browser session cookie. Null when none is valid, and for Chef clients: machine
 * identities with Chef-surface rights only; the console API is for people.
 */
async function authenticate(req: ApiRequest): Promise<Access | null> {
  const header = (h: string) => req.header(h);
  // Only a signed request's body is read here (its signature hashes it); the handler reads the same bytes.
  const body = hasChefSignature(header) ? await req.body(bodyLimit()) : new Uint8Array();
  const auth = await authenticateCaller({ method: req.method, path: req.path, header, body }, { id: HOME_ORG_ID }, ['signature', 'bearer', 'session']);
  return auth.ok && auth.actor.kind === 'user' ? auth.actor : null;
}

/** Writes a result: JSON serialised, the request id on it. */
function answer(result: ApiResult, requestId: string): ApiAnswer {
  if ('json' in result) return { status: result.status, headers: { 'content-type': 'application/json', ...result.headers, 'x-request-id': requestId }, body: JSON.stringify(result.json) };
  const type: Record<string, string> = typeof result.raw === 'string' ? { 'content-type': 'text/plain;charset=UTF-8' } : {};
  return { status: result.status, headers: { ...type, ...result.headers, 'x-request-id': requestId }, body: result.raw };
}

/** An answer the router gives before any route runs (404, 405): the API's error body with the request id. */
export function errorAnswer(req: ApiRequest, status: number, message: string, headers: Record<string, string> = {}): ApiAnswer {
  const res = errorResult(status, message);
  return answer({ ...res, headers }, requestIdFrom(req.header('x-request-id')));
}

/**
 * The one wrapper every /api/v1 handler goes through (see the file's comment). `caller` authenticates: null
 * answers 401.
 */
function envelope<A>(caller: (req: ApiRequest) => Promise<A | null>, userOf: (caller: A) => Access | null, run: (req: ApiRequest, caller: A, requestId: string, params: Record<string, string>) => Promise<ApiResult>) {
  return async (req: ApiRequest, params: Record<string, string>): Promise<ApiAnswer> => {
    const requestId = requestIdFrom(req.header('x-request-id'));
    try {
      const crossSite = crossSiteRefusal(req);
      if (crossSite) return answer(errorResult(403, crossSite), requestId);
      const who = await caller(req);
      if (who === null) return answer(errorResult(401, UNAUTHENTICATED), requestId);
      const user = userOf(who);
      // For the request log: who is asking, and how.
      if (user) noteActor(user.userId, user.via ?? 'session', (h) => req.header(h));
      // Issue 23: /api/v1 is the home organization's: a user who is not a member (and not an administrator, Chef's
      // superuser) is refused every route, as the Chef router refuses them every organization route (one rule, in can()).
      if (user && !can(user, 'org.access')) return answer(errorResult(403, refusal('org.access', {}, user)), requestId);
      return answer(await run(req, who, requestId, params), requestId);
    } catch (e) {
      const known = asAppError(e);
      if (known) {
        const res = errorResult(known.status, known.message, known.errors, known.details);
        const retryAfter = known.details?.retryAfter;
        if (typeof retryAfter === 'number') res.headers = { 'retry-after': String(retryAfter) };
        return answer(res, requestId);
      }
      console.error(`[api] ${req.method} ${req.path} request ${requestId} failed`, e);
      return answer(errorResult(500, `Internal error (request ${requestId}).`), requestId);
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

/** The body as text (TextDecoder, as Request.text() does: a leading BOM is dropped). */
async function readText(req: ApiRequest, limit = bodyLimit()): Promise<string> {
  return new TextDecoder().decode(await req.body(limit));
}

/** Parses a JSON body into a plain value (objects of any shape); 400 naming the problem otherwise. */
function parseJson(text: string): unknown {
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
function parseLosslessObject(text: string, maxDepth = MAX_DEPTH + ENVELOPE_DEPTH): Record<string, unknown> {
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

/** Reads and parses the query and body a contract declares. */
async function parseRequest<C extends RouteContract>(contract: C, req: ApiRequest, params: Record<string, string>): Promise<{ query: QueryOf<C>; body: BodyOf<C>; input: PathInputOf<C>; text: string; raw: unknown }> {
  const query = (contract.query ? parseWith(contract.query, Object.fromEntries(req.query), 'query') : {}) as QueryOf<C>;
  let body: unknown = undefined;
  let text = '';
  const kind = contract.bodyKind ?? (contract.body ? 'json' : undefined);
  if (kind === 'text') text = await readText(req, contract.bodyLimit);
  else if (kind === 'lossless') body = parseLosslessObject(await readText(req));
  else if (kind === 'json') body = parseJson(await readText(req, contract.bodyLimit));
  const raw = body;
  if (contract.body) body = parseWith(contract.body, body, 'body');
  const input: Record<string, unknown> = {};
  for (const f of contract.pathInput?.fields ?? []) input[f.field] = parseWith(z.object({ [f.field]: f.schema }), { [f.field]: params[f.param] }, 'body')[f.field];
  return { query, body: body as BodyOf<C>, input: input as PathInputOf<C>, text, raw };
}

/**
 * A row of the table: the contract and its handler. The query and body are parsed by the contract's snake_case
 * schemas before the handler runs, and the OpenAPI document describes the route from it.
 */
export function handle<C extends RouteContract>(contract: C, handler: (req: ApiRequest, ctx: ContractContext<C>) => Promise<ApiResult>): ApiRoute {
  if (contract.auth === 'public') throw new Error(`${contract.method} ${contract.path}: a public contract is served with publicRoute`);
  const rename = clientFieldNames(contract);
  return {
    contract,
    run: envelope(authenticate, (access) => access, async (req, access, requestId, params) => {
      const parsed = await parseRequest(contract, req, params);
      try {
        return await handler(req, { access, requestId, params, ...parsed });
      } catch (e) {
        throw rename(e);
      }
    }),
  };
}

/** A route anyone may call (the contract says `auth: 'public'`): the same envelope without authentication. */
export function publicRoute<C extends RouteContract>(contract: C, handler: (req: ApiRequest, ctx: PublicContext<C>) => Promise<ApiResult>): ApiRoute {
  if (contract.auth !== 'public') throw new Error(`${contract.method} ${contract.path}: publicRoute needs a contract with auth: 'public'`);
  return { contract, run: envelope(async () => true, () => null, async (req, _caller, requestId, params) => handler(req, { requestId, params, ...(await parseRequest(contract, req, params)) })) };
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
