/**
 * The Chef organization routes under test, over real HTTP on loopback, with
 * requests signed exactly as Chef's tools sign them (mixlib-authentication).
 *
 * Contract (tests are written against it):
 *   const chef = await startChefHarness();          // in beforeAll, after the per-file database exists
 *   const r = await chef.request('GET', 'policies', { as: 'admin' });
 *   r.status, r.json, r.text, r.headers
 *   await chef.close();                              // in afterAll
 *
 * - `path` is relative to `/organizations/<org>/` ('policies/foo'), or absolute
 *   when it starts with '/' (used for other orgs and for paths outside the org).
 *   A query string may follow; the signature covers the path only, as Chef's
 *   clients sign it.
 * - `as` names the actor whose key signs the request:
 *     a demo user name ('admin', 'release', 'dev', 'viewer', 'dba', 'ops'; keys
 *     are created on first use), 'validator' (the organization's validator
 *     client), 'client:<name>' (a client created on first use with its own key),
 *     or 'bearer:<email>' (an API token instead of a signature), or 'anonymous'
 *     (no credentials at all).
 * - `protocol` picks the signing protocol ('1.0', '1.1' default, '1.3');
 *   `apiVersion` sets X-Ops-Server-API-Version (default 2; null omits it);
 *   `tamper` changes the request after signing ('path' | 'body' | 'timestamp');
 *   `timestamp` signs with another clock (ISO 8601).
 * - The demo organisation is seeded unless `startChefHarness({ seed: false })`.
 */
export type ChefActor = 'admin' | 'release' | 'dev' | 'viewer' | 'dba' | 'ops' | 'validator' | 'anonymous' | `client:${string}` | `bearer:${string}`;

export interface ChefRequestOptions {
  as?: ChefActor;
  body?: unknown;
  /** Sent as is (a string body is not JSON-encoded again). */
  headers?: Record<string, string>;
  protocol?: '1.0' | '1.1' | '1.3';
  apiVersion?: number | null;
  tamper?: 'path' | 'body' | 'timestamp';
  timestamp?: string;
}

export interface ChefResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body, or undefined when it is not JSON. */
  json: any;
}

export interface ChefHarness {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The organization name the console serves (CHEF_ORG). */
  org: string;
  /** `${url}/organizations/${org}` */
  orgUrl: string;
  request(method: string, path: string, opts?: ChefRequestOptions): Promise<ChefResponse>;
  /** The private key PEM of an actor (created on first use), e.g. to sign by hand. */
  privateKey(actor: Exclude<ChefActor, 'anonymous' | `bearer:${string}`>): Promise<string>;
  close(): Promise<void>;
}

import { afterAll, beforeAll } from 'vitest';
import { db } from '@/lib/db/client';
import { loadAccess } from '@/lib/db/queries/access';
import { startChefServer } from '@/lib/chef/http';
import { chefOrg } from '@/lib/config';
import { signRequest, type SignProtocol } from '@/lib/auth/chef-signing';
import { createClient, rotateValidator } from '@/lib/services/clients';
import { addUserKey } from '@/lib/services/keys';
import { createApiToken } from '@/lib/services/users';
import { seedDemo } from '@/lib/seed/seed-demo';
import { hashPassword } from '@/lib/auth/password';
import { DEMO_PASSWORD, DEMO_USERS } from '@/lib/seed/demo-data';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';
import type { TlsFiles } from '@/lib/ops/tls';

const SYSTEM = { kind: 'system' as const, userId: null, email: 'test-harness' };
const HARNESS_NOW = new Date('2026-11-20T12:00:00Z');

/**
 * A file's harness: started before its tests (`beforeAll`) and closed after them (`afterAll`). The answer stands for
 * the harness that is running (read it inside tests and hooks, not at module load).
 */
export function useChefHarness(opts: Parameters<typeof startChefHarness>[0] = {}): ChefHarness {
  let running: ChefHarness | undefined;
  beforeAll(async () => {
    running = await startChefHarness(opts);
  });
  afterAll(async () => {
    await running?.close();
  });
  return new Proxy({} as ChefHarness, {
    get(_, key) {
      if (!running) throw new Error('the Chef harness starts in beforeAll: use it inside tests and hooks');
      const v = Reflect.get(running, key);
      return typeof v === 'function' ? v.bind(running) : v;
    },
  });
}

/** Users only (no stages, teams or policies): the empty organization pedant assumes, with the demo's people in it. */
async function seedUsersOnly() {
  if ((await db().user.count()) > 0) return;
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db().$transaction(async (tx) => {
    for (const u of DEMO_USERS) {
      await tx.user.create({ data: { email: u.email, name: u.name, chefName: u.chefName, isAdmin: !!u.isAdmin, passwordHash, orgMemberships: HOME_MEMBERSHIP } });
      await tx.chefName.create({ data: { name: u.chefName, kind: 'user' } });
    }
  });
}

export async function startChefHarness(opts: { seed?: boolean; tls?: TlsFiles } = {}): Promise<ChefHarness> {
  if (opts.seed === false) await seedUsersOnly();
  else await seedDemo(db(), HARNESS_NOW);
  // With `tls` the URL is https:// (a self-signed certificate: for callers that do not check it, like pedant).
  const { url, close } = await startChefServer(0, '127.0.0.1', { tls: opts.tls });
  const org = chefOrg();
  const orgUrl = `${url}/organizations/${org}`;
  const keys = new Map<string, Promise<string>>();
  const tokens = new Map<string, Promise<string>>();

  async function adminRequestor() {
    const admin = await db().user.findFirstOrThrow({ where: { chefName: 'admin' }, select: { id: true } });
    return (await loadAccess(admin.id))!;
  }

  function privateKey(actor: Exclude<ChefActor, 'anonymous' | `bearer:${string}`>): Promise<string> {
    let k = keys.get(actor);
    if (!k) {
      if (actor === 'validator') k = rotateValidator(SYSTEM, org).then((v) => v.privateKey);
      else if (actor.startsWith('client:')) {
        const name = actor.slice('client:'.length);
        k = adminRequestor().then((r) => createClient(r, { name, create_key: true }, { apiVersion: 1 })).then((c) => c.privateKey!);
      } else k = addUserKey(SYSTEM, actor, { name: `harness-${Date.now().toString(36)}` }).then((v) => v.privateKey);
      keys.set(actor, k);
    }
    return k;
  }

  function actorName(actor: ChefActor): string {
    if (actor === 'validator') return `${org}-validator`;
    if (actor.startsWith('client:')) return actor.slice('client:'.length);
    return actor;
  }

  async function request(method: string, path: string, o: ChefRequestOptions = {}): Promise<ChefResponse> {
    const full = path.startsWith('/') ? `${url}${path}` : `${orgUrl}/${path}`;
    const u = new URL(full);
    const body = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    const headers: Record<string, string> = { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
    const as = o.as ?? 'admin';
    if (as.startsWith('bearer:')) {
      const email = as.slice('bearer:'.length);
      let t = tokens.get(email);
      if (!t) {
        t = createApiToken(null, { userEmail: email, name: `harness-${email}` }).then((r) => r.token);
        tokens.set(email, t);
      }
      headers.authorization = `Bearer ${await t}`;
      if (o.apiVersion !== null) headers['x-ops-server-api-version'] = String(o.apiVersion ?? 2);
    } else if (as !== 'anonymous') {
      const key = await privateKey(as as Exclude<ChefActor, 'anonymous' | `bearer:${string}`>);
      const signedPath = o.tamper === 'path' ? `${u.pathname}x` : u.pathname;
      const signed = signRequest({
        protocol: (o.protocol ?? '1.1') as SignProtocol,
        method,
        path: signedPath,
        body: body ?? '',
        userId: actorName(as),
        privateKey: key,
        timestamp: o.timestamp,
        apiVersion: o.apiVersion === null ? null : String(o.apiVersion ?? 2),
      });
      if (o.tamper === 'timestamp') signed['X-Ops-Timestamp'] = new Date(Date.parse(signed['X-Ops-Timestamp']) + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      Object.assign(headers, signed);
    } else if (o.apiVersion !== null) {
      headers['x-ops-server-api-version'] = String(o.apiVersion ?? 2);
    }
    Object.assign(headers, o.headers);
    const sent = o.tamper === 'body' && body !== undefined ? body + ' ' : body;
    const res = await fetch(u, { method, headers, body: sent, redirect: 'manual' });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  return {
    url,
    org,
    orgUrl,
    request,
    privateKey,
    close,
  };
}
