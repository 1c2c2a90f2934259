/**
 * What every Chef resource handler works with: the request as the server
 * received it, the authenticated requestor, the matched path parameters, and
 * the helpers that shape Chef's answers. The route table (routes.ts) lists
 * the resources; router.ts dispatches to them.
 */
import { can, type Access } from '@/lib/auth/permissions';
import { clientMay, requestorAccess, type Requestor } from '@/lib/auth/requestor';
import { AppError, forbidden } from '@/lib/errors';
import { assertBodyDepth } from '@/lib/validation/limits';

/** The organization this install serves (CHEF_ORG, default `console`). */
export function chefOrg(): string {
  return process.env.CHEF_ORG || 'console';
}

export interface ChefRequest {
  method: string;
  /** The path exactly as sent (percent-escapes kept), without the query string. */
  rawPath: string;
  query: URLSearchParams;
  header(name: string): string | null | undefined;
  body: Buffer;
  /** scheme://host[:port] the client reached us at: the base of absolute URIs. */
  baseUrl: string;
}

export interface ChefResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface Ctx {
  req: ChefRequest;
  requestor: Requestor;
  params: Record<string, string>;
  apiVersion: number;
  requestId: string;
  orgUrl: string;
  /** True when the path came under /organizations/<org>/ (false for the server-level /users/…). */
  scoped: boolean;
  /** Sets a response header (Location). */
  headers: Record<string, string>;
}

export type Result = { status: number; json?: unknown; raw?: string; bytes?: Buffer } | null;
export type Handler = (ctx: Ctx) => Promise<Result>;

/** One row of the Chef route table: method, path pattern (`:param` segments, below /organizations/<org>/), handler. */
export interface ChefRoute {
  method: string;
  path: string;
  handler: Handler;
}

export function route(method: string, path: string, handler: Handler): ChefRoute {
  return { method, path, handler };
}

export const ok = (json: unknown, status = 200): Result => ({ status, json });
export const raw = (text: string, status = 200): Result => ({ status, raw: text });

/** A JSON body (Chef answers 400 "invalid JSON" otherwise). */
export function jsonBody(ctx: Ctx): unknown {
  const text = ctx.req.body.toString('utf8');
  // Issue 28: one depth limit on every body (a 5,000-deep node or manifest is a 400, not a 500 or a stored node).
  assertBodyDepth(text);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('bad_request', 'invalid JSON', [{ path: '', message: 'Body must be valid JSON' }]);
  }
}

export function userAccess(ctx: Ctx, what: string): Access {
  const access = requestorAccess(ctx.requestor);
  if (!access) throw forbidden(`Client '${(ctx.requestor as { name: string }).name}' may not ${what}.`);
  return access;
}

/**
 * Who may read policy data: users by their stage grants (everything but
 * stages is visible to every signed-in user), clients everything a node may
 * converge from (all stages), the validator nothing.
 */
export function policyReader(ctx: Ctx, what: string): { canView(stage: string): boolean } {
  const r = ctx.requestor;
  if (r.kind === 'client') {
    if (!clientMay(r, 'converge.read')) throw forbidden(`Client '${r.name}' may not ${what}.`);
    return { canView: () => true };
  }
  return { canView: (stage) => can(r.access, 'stage.view', { stage }) };
}
