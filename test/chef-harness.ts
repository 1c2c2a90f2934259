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

export async function startChefHarness(_opts: { seed?: boolean } = {}): Promise<ChefHarness> {
  throw new Error('startChefHarness: not implemented yet (the organization routes are being built)');
}
