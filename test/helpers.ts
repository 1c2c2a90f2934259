/** Integration-test helpers: demo data, tokens, route invocation and database snapshots. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { db } from '@/lib/db/client';
import { databaseFile, databaseUrl, isPostgresUrl } from '@/lib/db/url';
import { findPgBin } from './pg-server';
import { loadAccess } from '@/lib/db/queries/access';
import { createApiToken } from '@/lib/services/users';
import { seedDemo } from '@/lib/seed/seed-demo';
import type { Access } from '@/lib/auth/permissions';
import { handleApi } from '@/lib/api/router';
import { tooLarge } from '@/lib/api/envelope';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { isAppError } from '@/lib/errors';

export const NOW = new Date('2026-11-20T12:00:00Z');

export async function seed() {
  await seedDemo(db(), NOW);
}

const tokens = new Map<string, string>();
export async function tokenFor(email: string): Promise<string> {
  let t = tokens.get(email);
  if (!t) {
    t = (await createApiToken(null, { userEmail: email, name: `test-${email}` })).token;
    tokens.set(email, t);
  }
  return t;
}

export async function accessFor(email: string): Promise<Access> {
  const u = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true } });
  return (await loadAccess(u.id))!;
}

/** An /api/v1 route as the tests hold it: called like a route handler with a Web Request and its path parameters, served by the router. */
type RouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface CallOptions {
  token?: string | null;
  body?: string | object;
  params?: Record<string, string>;
  query?: string;
  headers?: Record<string, string>;
}

/** A Web Request's body read as the node adapter reads a request's: a declared length over the limit refused unread, else counted while streaming. */
async function webBody(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > limit) throw tooLarge(declared, limit);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(`more than ${limit}`, limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Serves a Web Request at `path` through the /api/v1 router (lib/api/router.ts), as the node:http front does. */
async function serveWeb(req: Request, path: string): Promise<Response> {
  const url = new URL(req.url);
  let read: Promise<Uint8Array> | undefined;
  let readLimit = 0;
  const out = await handleApi({
    method: req.method.toUpperCase(),
    path,
    query: url.searchParams,
    header: (name) => req.headers.get(name) ?? undefined,
    origin: url.origin,
    body: async (limit) => {
      if (!read) {
        readLimit = limit;
        read = webBody(req, limit);
      }
      const body = await read;
      if (body.byteLength > limit) throw tooLarge(`more than ${Math.min(limit, readLimit)}`, limit);
      return body;
    },
  });
  const empty = out.status === 204 || out.status === 304 || req.method.toUpperCase() === 'HEAD';
  return new Response(empty ? null : typeof out.body === 'string' ? out.body : Buffer.from(out.body), { status: out.status, headers: out.headers });
}

/**
 * The /api/v1 routes of a path, by method, as a route module exported them (`apiRoutes('/api/v1/rings/[id]').GET`):
 * each serves through the router at the path with the parameters filled in (%-encoded).
 */
export function apiRoutes(pattern: string): Record<'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', RouteHandler> {
  const at = (method: string): RouteHandler => async (req, ctx) => {
    const params = (await ctx?.params) ?? {};
    const path = pattern.replace(/\[(\w+)\]/g, (_m, k: string) => encodeURIComponent(params[k] ?? ''));
    return serveWeb(req.method === method ? req : new Request(req, { method }), path);
  };
  return { GET: at('GET'), POST: at('POST'), PUT: at('PUT'), DELETE: at('DELETE'), PATCH: at('PATCH') };
}

/** Calls an /api/v1 route with a bearer token (`token`), a JSON or text body and a query, through the router. */
export async function call(handler: RouteHandler, method: string, opts: CallOptions = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const req = new Request(`http://localhost/api/v1/test${opts.query ? '?' + opts.query : ''}`, { method, headers, body });
  const res = await handler(req, { params: Promise.resolve(opts.params ?? {}) });
  return answerOf(res);
}

async function answerOf(res: Response) {
  const text = await res.text();
  let json: any = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, text, json, headers: res.headers };
}

/**
 * Calls /api/v1 as a client would (issue 44 step 4): `path` is the full path as sent (`/api/v1/policies/webapp`),
 * `as` a user's email (their API token), or `token` one given; `body` JSON (an object) or text; `query` a string.
 */
export async function callApi(method: string, path: string, opts: Omit<CallOptions, 'params'> & { as?: string } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.as ? await tokenFor(opts.as) : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const req = new Request(`http://localhost${path}${opts.query ? '?' + opts.query : ''}`, { method, headers, body });
  return answerOf(await serveWeb(req, path));
}

/**
 * Bookkeeping columns an authenticated read may update (a token's or key's
 * last use, recorded at most once a minute): not a change the caller made,
 * so a "nothing changed" snapshot leaves them out.
 */
const BOOKKEEPING: Record<string, string[]> = { ApiToken: ['lastUsedAt'], ChefKey: ['lastUsedAt'] };

/**
 * Every row of every table, as text: equal snapshots mean the database did
 * not change (apart from the BOOKKEEPING columns). Synchronous on both
 * databases (psql on PostgreSQL, where rows are listed in the order of their
 * text, as there is no rowid).
 */
export function snapshot(opts: { except?: string[] } = {}): string {
  const skip = (t: string) => (opts.except ?? []).includes(t);
  if (isPostgresUrl()) {
    const tables = psql(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`).split('\n').filter((t) => t && !skip(t));
    if (!tables.length) return '';
    const row = (t: string) => (BOOKKEEPING[t] ? `(to_jsonb(x) - ${BOOKKEEPING[t].map((c) => `'${c}'`).join(' - ')})` : 'x');
    const q = tables.map((t) => `SELECT '${t}' || ':' || COALESCE((SELECT json_agg(${row(t)} ORDER BY ${row(t)}::text)::text FROM "${t}" x), '[]')`).join(' UNION ALL ');
    return psql(`SELECT string_agg(line, E'\\n' ORDER BY line) FROM (${q}) AS s(line)`);
  }
  const raw = new Database(databaseFile(), { readonly: true });
  try {
    const tables = raw
      .prepare("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((r: any) => r.name as string)
      .filter((t) => !skip(t));
    const rows = (t: string) => {
      const all = raw.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all() as Record<string, unknown>[];
      for (const r of all) for (const c of BOOKKEEPING[t] ?? []) delete r[c];
      return all;
    };
    return tables.map((t) => `${t}:${JSON.stringify(rows(t))}`).join('\n');
  } finally {
    raw.close();
  }
}

function psql(sql: string): string {
  const bin = findPgBin();
  const cmd = bin && fs.existsSync(path.join(bin, 'psql')) ? path.join(bin, 'psql') : 'psql';
  const r = spawnSync(cmd, ['-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql, databaseUrl()], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`psql failed: ${r.stderr || r.error}`);
  return r.stdout.replace(/\n$/, '');
}

/**
 * Issue 41: runs count in the stage the console has a node in (its node row), so a test reporting runs for a node
 * first places it: the node row in `stage` running `policy` (the policy row is created when the console has none).
 */
export async function placeNode(name: string, stage: string, policy: string): Promise<void> {
  const group = await db().policyGroup.findUniqueOrThrow({ where: { name: stage }, select: { id: true } });
  const p = (await db().policy.findUnique({ where: { name: policy }, select: { id: true } })) ?? (await db().policy.create({ data: { name: policy }, select: { id: true } }));
  await db().node.upsert({ where: { name }, create: { name, groupId: group.id, policyId: p.id, lastCheckIn: new Date() }, update: { groupId: group.id, policyId: p.id } });
}

/**
 * Polls `cond` (it reads I/O: a database row, a log line, a delivery pass) until it holds. Past the deadline it fails
 * naming `what`: a hang guard with a message, well inside the tests' own timeout, not a speed check.
 */
export async function pollUntil(what: string, cond: () => boolean | Promise<boolean>, opts: { everyMs?: number; deadlineMs?: number } = {}): Promise<void> {
  const limit = opts.deadlineMs ?? 60_000;
  const deadline = Date.now() + limit;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${limit / 1000} s`);
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 20));
  }
}

/** The AppError a service call refuses with (anything else is rethrown; success fails the test). */
export async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (isAppError(e)) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

/** What a form receives from a failed action (`runAction` throws the action's failure); success fails the test. */
export async function actionFailure(run: Promise<unknown>): Promise<ActionServerError> {
  try {
    await run;
  } catch (e) {
    return e as ActionServerError;
  }
  throw new Error('the action succeeded');
}
