/**
 * Chef Server's HTTP API under /organizations/<org>/… (and the server-level
 * /users/:user/keys), framework-free so it can run in front of Next in a
 * plain node:http server. Dispatch only: the routes are data (routes.ts, one
 * file per resource under resources/); every answer is JSON with Chef's
 * shapes, status codes and messages; nothing here redirects.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createHash, timingSafeEqual } from 'node:crypto';
import { can } from '@/lib/auth/permissions';
import { HOME_ORG_ID, notAssociatedMessage, notHeldMessage, SERVER_LEVEL_ORG_ID } from '@/lib/domain/organizations';
import { organizationForName } from '@/lib/services/organizations';
import { asAppError, badRequest, CHEF_STRING_ERROR } from '@/lib/errors';
import { processState } from '@/lib/process-state';
import { authenticate } from '@/lib/authn';
import { isPresigned, verifyPresigned } from '@/lib/auth/presigned-url';
import { contentHashCheck, hasChefSignature, STREAMED_BODY } from '@/lib/auth/chef-signing';
import { noteRoute } from '@/lib/ops/request-context';
import { requestIdFrom } from '@/lib/ops/request-id';
import { declaresOver, readBody } from '@/lib/ops/body';
import { API_MAX_VERSION, API_MIN_VERSION, CHEF_JSON_LIMIT, type ChefRequest, type ChefResponse, type ChefRoute, type Ctx, type PresignedCtx, type Result } from './context';
import { chefOrg, dataCollectorToken } from '@/lib/config';
import { chefRoutes } from './routes';

export { type ChefRequest, type ChefResponse } from './context';
export { chefRouteTable } from './routes';

export { API_MAX_VERSION, API_MIN_VERSION } from './context';

interface CompiledRoute {
  route: ChefRoute;
  pattern: string[];
}

const compiled: CompiledRoute[] = chefRoutes.map((route) => ({ route, pattern: route.path.split('/').filter(Boolean) }));

function match(pattern: string[], segs: string[]): Record<string, string> | null {
  if (pattern.length !== segs.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) params[p.slice(1)] = segs[i];
    else if (p !== segs[i]) return null;
  }
  return params;
}

// -------------------------------------------------------------------- dispatch

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The Chef door's credentials: a Chef signature, or a console API token (no browser session). */
const CHEF_ACCEPTS = ['signature', 'bearer'] as const;

/** Process state (lib/process-state.ts): one memo for the server's copy of this module and Next's. */
const versionHeaders = processState('chef.router.version-headers', () => new Map<string, string>());

function apiVersionHeader(requested: number, response: number): string {
  const k = `${requested}/${response}`;
  let h = versionHeaders.get(k);
  if (h === undefined) {
    h = JSON.stringify({ min_version: String(API_MIN_VERSION), max_version: String(API_MAX_VERSION), request_version: String(requested), response_version: String(response) });
    // Remembered for the supported versions only (a refused one may be any number).
    if (response >= 0) versionHeaders.set(k, h);
  }
  return h;
}

/**
 * Chef's error body, exactly: `{"error": [message]}` (or a string where Chef
 * answers one). The console's every-violation detail (`errors`, and any other
 * detail of the error) is added only when the caller opts in with
 * `X-Console-Error-Detail: 1`; /api/v1 always answers with it.
 */
function errorBody(message: string, errors: { path: string; message: string }[] = [], extra?: Record<string, unknown>, detail = false): string {
  const { [CHEF_STRING_ERROR]: asString, ...rest } = extra ?? {};
  const more = detail ? { ...(errors.length ? { errors } : {}), ...rest } : {};
  return JSON.stringify({ error: asString ? message : [message], ...more });
}

function decodeSegment(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** Chef Server's server-level endpoints (outside any organization) that the console serves. */
const SERVER_LEVEL = new Set(['/users', '/server_api_version', '/license']);

/** Chef Automate's token form of the data collector (issue 26), a row of the route table (resources/data-collector.ts). */
const DATA_COLLECTOR_TOKEN_PATHS = new Set(['/data-collector/v0', '/data-collector/v0/']);

/** True for the paths this router owns: everything under /organizations, Chef's server-level /users, /server_api_version and /license, and Automate's /data-collector/v0. */
export function isChefPath(path: string): boolean {
  return path === '/organizations' || path.startsWith('/organizations/') || path.startsWith('/users/') || SERVER_LEVEL.has(path) || DATA_COLLECTOR_TOKEN_PATHS.has(path);
}

/** `x-data-collector-token` against DATA_COLLECTOR_TOKEN, in constant time (both hashed first: equal lengths). */
function sameToken(presented: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(expected).digest());
}

/**
 * What the adapter (http.ts) hands the router: the request without its body, and the body unread (`source`),
 * read after the route match with the row's limit (docs/architecture.md 7.3).
 */
interface ChefInput extends Omit<ChefRequest, 'body' | 'stream'> {
  source: IncomingMessage;
}

const EMPTY = Buffer.alloc(0);

/**
 * Chef Server's front door refuses clients older than Chef 10 (nginx's
 * dispatch.lua; 0.10.x is let through); a request without X-Chef-Version is
 * not a Chef client's and is not checked here.
 */
export function chefVersionRefusal(version: string | null | undefined): string | null {
  if (version === undefined || version === null) return null;
  const m = /^(\d+)\.(\d+)\./.exec(version);
  if (m && (Number(m[1]) >= 10 || (Number(m[1]) === 0 && Number(m[2]) === 10))) return null;
  return `400 - Bad Request: Chef Client version 10 or higher required. Your version of Chef is ${version}.`;
}

/**
 * Serves one Chef API request. The org routes are matched on the path as
 * sent; a path under another org is a 404 naming it; an unknown path is a
 * JSON 404; a known path with another method is a 405 with `Allow`.
 */
export async function handleChef(input: ChefInput): Promise<ChefResponse> {
  const { source, ...rest } = input;
  let req: ChefRequest = { ...rest, body: EMPTY };
  const requestId = requestIdFrom(req.header('x-request-id'));
  const headers: Record<string, string> = { ...JSON_HEADERS, 'x-request-id': requestId };
  const reply = (status: number, body: string | Buffer = ''): ChefResponse => ({ status, headers, body: req.method === 'HEAD' ? '' : body });
  // Issue 46: a file streamed from the store (a HEAD gets its headers only).
  const replyWith = (result: NonNullable<Result>): ChefResponse => {
    if (result.stream) {
      if (req.method === 'HEAD') {
        result.stream.destroy();
        return reply(result.status);
      }
      return { status: result.status, headers, body: '', stream: result.stream };
    }
    if (result.raw !== undefined) return reply(result.status, result.raw);
    if (result.bytes !== undefined) return reply(result.status, result.bytes);
    return reply(result.status, result.json === undefined ? '' : JSON.stringify(result.json));
  };

  const tooOld = chefVersionRefusal(req.header('x-chef-version'));
  if (tooOld) return reply(400, JSON.stringify({ error: tooOld }));

  // API version (erchef checks it before authentication).
  const rawVersion = req.header('x-ops-server-api-version');
  const version = rawVersion === undefined || rawVersion === null ? 0 : /^-?\d+$/.test(rawVersion.trim()) ? Number(rawVersion.trim()) : NaN;
  if (!Number.isInteger(version) || version < API_MIN_VERSION || version > API_MAX_VERSION) {
    headers['x-ops-server-api-version'] = apiVersionHeader(Number.isInteger(version) ? version : -1, -1);
    return reply(406, JSON.stringify({ error: 'invalid-x-ops-server-api-version', message: `Specified version ${rawVersion} not supported`, min_version: API_MIN_VERSION, max_version: API_MAX_VERSION }));
  }
  headers['x-ops-server-api-version'] = apiVersionHeader(version, version);

  const segsRaw = req.rawPath.split('/').filter(Boolean);
  const segs: string[] = [];
  for (const s of segsRaw) {
    const d = decodeSegment(s);
    if (d === null) return reply(400, errorBody(`Malformed percent-escape in path segment '${s}'`));
    segs.push(d);
  }
  // Issue 23 (step 4): the URL's organization. The home one (CHEF_ORG) is known without a query; another is one
  // lookup by its unique name. `/organizations` and `/organizations/:org` themselves are server-level routes.
  const homeName = chefOrg();
  const scoped = segs[0] === 'organizations' && segs.length > 2;
  let org = homeName;
  let orgId = HOME_ORG_ID;
  let home = true;
  let rel: string[];
  if (scoped) {
    const found = await organizationForName(segs[1], homeName);
    if (!found) return reply(404, errorBody(`organization '${segs[1]}' does not exist.`));
    orgId = found.id;
    home = found.home;
    org = segs[1];
    rel = segs.slice(2);
  } else {
    rel = segs; // /users/…, /organizations[/:org]: Chef's server-level endpoints
  }

  const candidates: { r: CompiledRoute; params: Record<string, string> }[] = [];
  for (const c of compiled) {
    if (c.route.serverOnly && scoped) continue;
    const params = match(c.pattern, rel);
    if (params) candidates.push({ r: c, params });
  }
  if (!candidates.length) return reply(404, errorBody(`Not found: ${req.rawPath}`));
  // Another organization holds identities only: its clients, users, their keys and its groups.
  if (!home && !candidates.some((c) => c.r.route.anyOrg)) return reply(404, errorBody(notHeldMessage(org, homeName)));
  const hit = candidates.find((c) => c.r.route.method === req.method);
  // Metrics and the request log name the pattern, never the raw path.
  noteRoute((scoped ? '/organizations/:org/' : '/') + (hit ?? candidates[0]).r.pattern.join('/'));
  if (!hit) {
    headers.allow = [...new Set(candidates.map((c) => c.r.route.method))].join(', ');
    return reply(405, errorBody(`Method ${req.method} is not allowed on ${req.rawPath}`));
  }
  const row = hit.r.route;
  const orgUrl = `${req.baseUrl}/organizations/${org}`;

  /** Runs a handler: its result, or its error in Chef's manner (`detail`: the every-violation detail always). */
  const run = async (handler: () => Promise<Result>, detail = req.header('x-console-error-detail') === '1'): Promise<ChefResponse> => {
    try {
      const result = await handler();
      if (!result) return reply(204);
      return replyWith(result);
    } catch (e) {
      const known = asAppError(e);
      if (known && (known.code as string) === 'method_not_allowed') return reply(405, errorBody(known.message));
      if (known) return reply(known.status, errorBody(known.message, known.errors, known.details, detail));
      console.error(`[chef] ${req.method} ${req.rawPath} request ${requestId} failed`, e);
      return reply(500, errorBody('internal service error'));
    }
  };

  let tooLarge = '';
  /** The body, read now with the row's limit (a streamed row's handed over unread); false when it is too large. */
  const readRowBody = async (): Promise<boolean> => {
    const limit = row.bodyLimit ?? CHEF_JSON_LIMIT;
    const max = limit.bytes();
    if (row.streamed && !declaresOver(source, max)) {
      req = { ...req, stream: source };
      return true;
    }
    const body = await readBody(source, max);
    if (body === 'too-large') {
      tooLarge = JSON.stringify(limit.refusal(max));
      return false;
    }
    req = { ...req, body };
    return true;
  };
  const refuseTooLarge = () => {
    headers.connection = 'close';
    return reply(413, tooLarge);
  };

  // Issue 26: Automate's token form (404 while no DATA_COLLECTOR_TOKEN is set, 401 for a wrong or missing token, as
  // Automate answers; checked before the body is read). Its errors always carry their detail, as they always have.
  if (row.auth === 'collector-token') {
    const token = dataCollectorToken();
    if (!token) return reply(404, errorBody('The token form of the data collector is off (no DATA_COLLECTOR_TOKEN); report through the signed /organizations/<org>/data-collector'));
    const presented = req.header('x-data-collector-token');
    if (typeof presented !== 'string' || !sameToken(presented, token)) return reply(401, errorBody('x-data-collector-token is missing or wrong'));
    if (!(await readRowBody())) return refuseTooLarge();
    const ctx: PresignedCtx = { req, params: hit.params, apiVersion: version, requestId, org, orgId, home, orgUrl, headers, scoped };
    return run(() => row.handler(ctx), true);
  }

  // A pre-signed URL (a cookbook file, as Chef hands out bookshelf/S3 URLs): served unsigned until it expires.
  const presigned = row.presigned;
  if (presigned && isPresigned(req.query) && !hasChefSignature(req.header)) {
    const check = verifyPresigned(req.rawPath, req.query);
    if (check !== 'ok') return reply(403, errorBody(check === 'expired' ? 'This file URL has expired: read the cookbook artifact again for a fresh one.' : 'This file URL is not valid: its signature does not match.'));
    try {
      const result = await presigned({ req, params: hit.params, apiVersion: version, requestId, org, orgId, home, orgUrl, headers, scoped });
      if (!result) return reply(204);
      return replyWith(result);
    } catch (e) {
      const known = asAppError(e);
      if (known) return reply(known.status, errorBody(known.message));
      console.error(`[chef] ${req.method} ${req.rawPath} request ${requestId} failed`, e);
      return reply(500, errorBody('internal service error'));
    }
  }

  // The body, after the match, with the row's limit; before authentication (a signature covers its hash).
  if (!(await readRowBody())) return refuseTooLarge();

  // Issue 23: the actor is loaded for the URL's organization: a client only there (elsewhere it does not exist:
  // 401), a user with their membership of it. At the server level there is no organization: users only.
  const auth = await authenticate({ method: req.method, path: req.rawPath, header: req.header, body: req.stream ? STREAMED_BODY : req.body }, { id: scoped ? orgId : SERVER_LEVEL_ORG_ID }, CHEF_ACCEPTS);
  if (!auth.ok) {
    req.stream?.resume();
    if (auth.status === 0) return reply(401, errorBody('missing required authentication header(s) X-Ops-UserId, X-Ops-Timestamp, X-Ops-Sign, X-Ops-Content-Hash, X-Ops-Authorization-1'));
    return reply(auth.status, errorBody(auth.message));
  }
  // Issue 46: a streamed upload's body is checked against the hash the signature covers as the handler reads it.
  if (req.stream && auth.protocol !== 'bearer' && auth.protocol !== 'session') req = { ...req, stream: through(req.stream, contentHashCheck(auth.protocol, req.header('x-ops-content-hash') ?? '')) };
  // Every organization route: a signed-in user who is not a member is refused before any handler, with erchef's
  // exact body (its forbidden/2 check); the console's administrators (Chef's superuser) pass, as in erchef.
  if (scoped && !can(auth.actor, 'org.access')) {
    const who = auth.actor.kind === 'user' ? (auth.actor.chefName ?? auth.actor.email) : auth.actor.name;
    return reply(403, errorBody(notAssociatedMessage(who, org)));
  }
  const ctx: Ctx = { req, actor: auth.actor, params: hit.params, apiVersion: version, requestId, org, orgId, home, orgUrl, headers, scoped };
  return run(() => row.handler(ctx));
}

/** `source` piped into `t`, a failure of the source (the client went away) failing `t` too. */
function through(source: Readable, t: Transform): Transform {
  // `t` fails at the body's end, possibly before the handler reads it (a small body arrives whole): a listener for
  // its whole life keeps that a failure of the stream (`t.errored`, seen by the reader), never an uncaught 'error'.
  t.on('error', () => undefined);
  source.once('error', (e) => t.destroy(e));
  source.once('aborted', () => t.destroy(badRequest('The upload ended before its body did: the client closed the connection.')));
  return source.pipe(t);
}
