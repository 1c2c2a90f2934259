/** Integration-test helpers: demo data, tokens, route invocation and database snapshots. */
import Database from 'better-sqlite3';
import { db } from '@/lib/db/client';
import { databaseFile } from '@/lib/db/url';
import { loadAccess } from '@/lib/db/queries/access';
import { createApiToken } from '@/lib/services/create-api-token';
import { seedDemo } from '@/lib/seed/seed-demo';
import type { Access } from '@/lib/auth/permissions';

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

/** Every row of every table, as text: equal snapshots mean the database did not change. */
export function snapshot(opts: { except?: string[] } = {}): string {
  const raw = new Database(databaseFile(), { readonly: true });
  try {
    const tables = raw
      .prepare("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((r: any) => r.name as string)
      .filter((t) => !(opts.except ?? []).includes(t));
    return tables.map((t) => `${t}:${JSON.stringify(raw.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all())}`).join('\n');
  } finally {
    raw.close();
  }
}
