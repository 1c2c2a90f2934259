/** Integration-test helpers: demo data, tokens, route invocation and database snapshots. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { db } from '@/lib/db/client';
import { databaseFile, databaseUrl, isPostgresUrl } from '@/lib/db/url';
import { findPgBin } from './pg-server';
import { loadAccess } from '@/lib/db/queries/access';
import { createApiToken } from '@/lib/services/create-api-token';
import { seedDemo } from '@/lib/seed/seed-demo';
import type { Access } from '@/lib/auth/permissions';
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

type RouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface CallOptions {
  token?: string | null;
  body?: string | object;
  params?: Record<string, string>;
  query?: string;
  headers?: Record<string, string>;
}

/** Calls a route handler as Next would, with a bearer token. */
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
  const text = await res.text();
  let json: any = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, text, json };
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
