/**
 * What every Chef resource handler works with: the request as the server
 * received it, the authenticated requestor, the matched path parameters, and
 * the helpers that shape Chef's answers. The route table (routes.ts) lists
 * the resources; router.ts dispatches to them.
 */
import type { Readable } from 'node:stream';
import { can, type Access, type Action, type Actor, type Resource } from '@/lib/auth/permissions';
import { AppError, forbidden } from '@/lib/errors';
import { assertBodyDepth, maxDocumentBytes } from '@/lib/validation/limits';
import { chefMaxRequestSize, dataCollectorMaxBytes } from '@/lib/config';
import { parseLossless } from '@/lib/domain';

/** The Chef Server API versions (X-Ops-Server-API-Version) this server speaks. */
export const API_MIN_VERSION = 0;
export const API_MAX_VERSION = 2;


export interface ChefRequest {
  method: string;
  /** The path exactly as sent (percent-escapes kept), without the query string. */
  rawPath: string;
  query: URLSearchParams;
  header(name: string): string | null | undefined;
  body: Buffer;
  /**
   * Issue 46: a cookbook file upload's body, not read yet (`body` is then empty): the handler streams it to the
   * file store. Its X-Ops-Content-Hash is checked as it is read (the stream fails at its end when it does not match).
   */
  stream?: Readable;
  /** scheme://host[:port] the client reached us at: the base of absolute URIs. */
  baseUrl: string;
}

export interface ChefResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
  /** Issue 46: a body streamed to the client (a cookbook file from the store); `body` is then empty. */
  stream?: Readable;
}

export interface Ctx {
  req: ChefRequest;
  /** Who asks, authenticated once for this request. */
  actor: Actor;
  params: Record<string, string>;
  apiVersion: number;
  requestId: string;
  /** The organization of the URL (the home organization, CHEF_ORG, for the server-level routes). */
  org: string;
  /** Its id (issue 23: HOME_ORG_ID for the home organization and at the server level). */
  orgId: string;
  /** Issue 23 (step 4): the URL's organization is the home one, which holds every Chef object (true at the server level). */
  home: boolean;
  orgUrl: string;
  /** True when the path came under /organizations/<org>/ (false for the server-level /users/…). */
  scoped: boolean;
  /** Sets a response header (Location). */
  headers: Record<string, string>;
}

export type Result = { status: number; json?: unknown; raw?: string; bytes?: Buffer; stream?: Readable } | null;
export type Handler = (ctx: Ctx) => Promise<Result>;

/**
 * A route's body limit (docs/architecture.md 7.3): read per request (the settings are read when the request comes),
 * applied by the router after the route match; `refusal` is the 413's body in that door's manner.
 */
export interface BodyLimit {
  bytes(): number;
  refusal(limit: number): { error: string | string[] };
}

/** Chef Server's JSON limit (CHEF_MAX_REQUEST_SIZE): erchef's text, a string. The default of every row. */
export const CHEF_JSON_LIMIT: BodyLimit = { bytes: chefMaxRequestSize, refusal: (n) => ({ error: `JSON must be no more than ${n} bytes.` }) };

/** Cookbook files (file_store, bookshelf's part in Chef Server): the console's document limit, named. */
export const DOCUMENT_LIMIT: BodyLimit = { bytes: maxDocumentBytes, refusal: (n) => ({ error: `Request body is larger than ${n} bytes (MAX_BODY_BYTES)` }) };

/** Run reports, both forms of the data collector (DATA_COLLECTOR_MAX_BYTES; open question 7: the signed form too). */
export const DATA_COLLECTOR_LIMIT: BodyLimit = { bytes: dataCollectorMaxBytes, refusal: (n) => ({ error: [`A data collector message is at most ${n} bytes (DATA_COLLECTOR_MAX_BYTES)`] }) };

interface RouteRow {
  method: string;
  path: string;
  /**
   * Issue 23 (step 4): served under every organization (clients, users, their keys, groups). Absent: the
   * home organization's only (another organization holds identities, not Chef objects: 404 there).
   */
  anyOrg?: true;
  /**
   * Served at the server level only (`organizations`, `organizations/:org`, a user's key writes): under an
   * organization the path matches other methods only (405 before authentication, as erchef), or nothing (404).
   */
  serverOnly?: true;
  /** The body's limit, applied after the route match (absent: CHEF_JSON_LIMIT). */
  bodyLimit?: BodyLimit;
  /**
   * Issue 46: the body is handed to the handler unread (`req.stream`, `req.body` empty) unless it declares more
   * than the limit (then 413 before reading): a cookbook file upload, streamed to the file store.
   */
  streamed?: true;
}

/** One row of the Chef route table: method, path pattern (`:param` segments, below /organizations/<org>/), handler. */
interface SignedRow extends RouteRow {
  /** Absent: a Chef signature or a console API token (lib/authn), the actor handed to the handler. */
  auth?: undefined;
  handler: Handler;
  /**
   * For a request without a Chef signature whose URL carries a valid
   * pre-signature (lib/auth/presigned-url.ts): served by this handler, which has no actor
   * (the URL was handed out to one that `can()` read it). Absent: every
   * request is authenticated.
   */
  presigned?: (ctx: PresignedCtx) => Promise<Result>;
}

/**
 * Issue 26: Chef Automate's token form of the data collector: `x-data-collector-token` compared by the router with
 * DATA_COLLECTOR_TOKEN in constant time (404 when none is configured, 401 when wrong); the handler has no actor.
 */
interface CollectorTokenRow extends RouteRow {
  auth: 'collector-token';
  handler: (ctx: PresignedCtx) => Promise<Result>;
}

export type ChefRoute = SignedRow | CollectorTokenRow;

/** The routes of a resource served under every organization (routes.ts). */
export function everyOrganization(routes: readonly ChefRoute[]): ChefRoute[] {
  return routes.map((r) => ({ ...r, anyOrg: true as const }));
}

/** The routes of a resource served at the server level only (routes.ts). */
export function serverLevelOnly(routes: readonly ChefRoute[]): ChefRoute[] {
  return routes.map((r) => ({ ...r, serverOnly: true as const }));
}

/** What a pre-signed request's (or a token-form data collector message's) handler works with: no actor. */
export type PresignedCtx = Omit<Ctx, 'actor'>;

export function route(method: string, path: string, handler: Handler, presigned?: SignedRow['presigned']): ChefRoute {
  return presigned ? { method, path, handler, presigned } : { method, path, handler };
}

export const ok = (json: unknown, status = 200): Result => ({ status, json });
export const raw = (text: string, status = 200): Result => ({ status, raw: text });

/** A JSON body (Chef answers 400 "invalid JSON" otherwise). */
export function jsonBody(ctx: { req: ChefRequest }): unknown {
  const text = ctx.req.body.toString('utf8');
  // Issue 28: one depth limit on every body (a 5,000-deep node or manifest is a 400, not a 500 or a stored node).
  assertBodyDepth(text);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('bad_request', 'invalid JSON', [{ path: '', message: 'Body must be valid JSON' }]);
  }
}

/**
 * Issue 42: a JSON body parsed losslessly (numbers keep their lexemes: `1.0` stays `1.0`), for the Chef objects
 * the console stores and serves as sent (nodes). Same depth limit and the same 400 as jsonBody.
 */
export function losslessJsonBody(ctx: Ctx): unknown {
  const text = ctx.req.body.toString('utf8');
  assertBodyDepth(text);
  try {
    return parseLossless(text);
  } catch {
    throw new AppError('bad_request', 'invalid JSON', [{ path: '', message: 'Body must be valid JSON' }]);
  }
}

/** Chef's refusal of an actor: "Client 'web-1' may not read policies." (a user: "You may not …"). */
export function notAllowed(actor: Actor, what: string): AppError {
  return forbidden(actor.kind === 'client' ? `Client '${actor.name}' may not ${what}.` : `You may not ${what}.`);
}

/** `can(ctx.actor, action, resource)`, or a 403 in Chef's manner naming `what`. */
export function allow(ctx: Ctx, action: Action, resource: Resource, what: string): Actor {
  if (!can(ctx.actor, action, resource)) throw notAllowed(ctx.actor, what);
  return ctx.actor;
}

/**
 * For the routes only console users call (policy uploads, stage changes):
 * the user's access; a client is told it may not `what` (no row of the
 * permission table gives a client these rights).
 */
export function userAccess(ctx: Ctx, what: string): Access {
  if (ctx.actor.kind !== 'user') throw notAllowed(ctx.actor, what);
  return ctx.actor;
}

/**
 * Who may read policy data: anyone `policy.read` allows (users, clients;
 * not the validator, which is refused naming `what`); per stage, as
 * `stage.view` says (users by their grants, clients every stage).
 */
export function policyReader(ctx: Ctx, what: string): Actor {
  return allow(ctx, 'policy.read', {}, what);
}
