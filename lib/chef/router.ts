/**
 * Chef Server's HTTP API under /organizations/<org>/… (and the server-level
 * /users/:user/keys), framework-free so it can run in front of Next in a
 * plain node:http server. Every answer is JSON with Chef's shapes, status
 * codes and messages; nothing here redirects. Thin: authentication, then the
 * shared services in lib/services.
 */
import { randomUUID } from 'node:crypto';
import { can, type Access } from '@/lib/auth/permissions';
import { clientMay, requestorAccess, type Requestor } from '@/lib/auth/requestor';
import { asAppError, AppError, CHEF_STRING_ERROR, forbidden, notFound } from '@/lib/errors';
import { chefGroupRows, chefPolicyRows, revisionDocumentWithGroups, groupPolicyDocument } from '@/lib/db/queries/policies';
import { userProfile } from '@/lib/db/queries/users';
import { deletePolicy, deleteRevision } from '@/lib/services/delete-policy';
import { deleteStage } from '@/lib/services/manage-stage';
import { removeGroupPolicy, setGroupPolicy } from '@/lib/services/set-group-policy';
import type { PromotionRequestDto } from '@/lib/services/promotion-requests';
import { uploadRevision } from '@/lib/services/upload-revision';
import { createChefNode, deleteChefNode, getChefNode, listChefNodes, updateChefNode } from '@/lib/services/chef-nodes';
import { createClient, createKey, deleteClient, deleteKey, getClient, getKey, listClients, listKeys, updateClient, updateKey, type ClientDto, type KeyDto, type KeyOwner } from '@/lib/services/chef-keys';
import { authenticateRequest, verifyChefRequest } from './authn';
import { chefLockProblem } from './lock-validation';
import { assertCookbookRead, commitSandbox, createSandbox, deleteArtifact, getArtifact, listArtifacts, putArtifact, readCookbookFile, uploadSandboxFile } from '@/lib/services/cookbook-artifacts';
import { hasChefSignature } from './signing';
import { fastPolicyRead } from '@/lib/db/queries/chef-read-path';

export const API_MIN_VERSION = 0;
export const API_MAX_VERSION = 2;

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

interface Ctx {
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

type Result = { status: number; json?: unknown; raw?: string; bytes?: Buffer } | null;
type Handler = (ctx: Ctx) => Promise<Result>;

interface Route {
  method: string;
  pattern: string[];
  handler: Handler;
}

const routes: Route[] = [];
function route(method: string, path: string, handler: Handler) {
  routes.push({ method, pattern: path.split('/').filter(Boolean), handler });
}

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

/** A JSON body (Chef answers 400 "invalid JSON" otherwise). */
function jsonBody(ctx: Ctx): unknown {
  const text = ctx.req.body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('bad_request', 'invalid JSON', [{ path: '', message: 'Body must be valid JSON' }]);
  }
}

function userAccess(ctx: Ctx, what: string): Access {
  const access = requestorAccess(ctx.requestor);
  if (!access) throw forbidden(`Client '${(ctx.requestor as { name: string }).name}' may not ${what}.`);
  return access;
}

/**
 * Who may read policy data: users by their stage grants (everything but
 * stages is visible to every signed-in user), clients everything a node may
 * converge from (all stages), the validator nothing.
 */
function policyReader(ctx: Ctx, what: string): { canView(stage: string): boolean } {
  const r = ctx.requestor;
  if (r.kind === 'client') {
    if (!clientMay(r, 'converge.read')) throw forbidden(`Client '${r.name}' may not ${what}.`);
    return { canView: () => true };
  }
  return { canView: (stage) => can(r.access, 'stage.view', { stage }) };
}

const ok = (json: unknown, status = 200): Result => ({ status, json });
const raw = (text: string, status = 200): Result => ({ status, raw: text });

// ------------------------------------------------------------------ policies

route('GET', 'policies', async (ctx) => {
  policyReader(ctx, 'list policies');
  const rows = await chefPolicyRows();
  return ok(Object.fromEntries(rows.map((p) => [p.name, { uri: `${ctx.orgUrl}/policies/${p.name}`, revisions: Object.fromEntries(p.revisions.map((r) => [r, {}])) }])));
});

route('GET', 'policies/:name', async (ctx) => {
  policyReader(ctx, 'read policies');
  const p = (await chefPolicyRows(ctx.params.name))[0];
  if (!p) throw notFound(`Cannot load policy ${ctx.params.name}`);
  return ok({ revisions: Object.fromEntries(p.revisions.map((r) => [r, {}])) });
});

route('DELETE', 'policies/:name', async (ctx) => ok(await deletePolicy(userAccess(ctx, 'delete policies'), ctx.params.name, ctx.requestId)));

/** Chef's validation first (its exact, single message), then the console's. */
function chefValidated(ctx: Ctx, urlName: string): string {
  const text = ctx.req.body.toString('utf8');
  const problem = chefLockProblem(text, urlName);
  if (problem) throw new AppError('bad_request', problem, [{ path: '', message: problem }]);
  return text;
}

route('POST', 'policies/:name/revisions', async (ctx) => {
  const access = userAccess(ctx, 'upload policy revisions');
  const text = chefValidated(ctx, ctx.params.name);
  const result = await uploadRevision(access, { policyName: ctx.params.name, text, requestId: ctx.requestId, ownerTeam: ctx.req.query.get('owner_team') ?? ctx.req.query.get('team') ?? undefined });
  if (!result.created) throw new AppError('conflict', `Policy revision ${result.revisionId} of '${ctx.params.name}' already exists`);
  ctx.headers.location = `${ctx.orgUrl}/policies/${ctx.params.name}/revisions/${result.revisionId}`;
  return raw(result.document, 201);
});

route('GET', 'policies/:name/revisions/:rev', async (ctx) => raw(await revisionDocumentWithGroups(policyReader(ctx, 'read policy revisions'), ctx.params.name, ctx.params.rev)));

route('DELETE', 'policies/:name/revisions/:rev', async (ctx) => {
  const access = userAccess(ctx, 'delete policy revisions');
  return raw((await deleteRevision(access, ctx.params.name, ctx.params.rev, ctx.requestId)).document);
});

// ------------------------------------------------------------- policy groups

/** Chef's group body: a named group always has `policies` (maybe `{}`); in the list an empty group has only its `uri`. */
function groupBody(ctx: Ctx, g: { name: string; policies: { policy: string; revisionId: string }[] }, inList = false) {
  const uri = `${ctx.orgUrl}/policy_groups/${g.name}`;
  if (inList && !g.policies.length) return { uri };
  return { uri, policies: Object.fromEntries(g.policies.map((p) => [p.policy, { revision_id: p.revisionId }])) };
}

route('GET', 'policy_groups', async (ctx) => {
  const reader = policyReader(ctx, 'list policy groups');
  const groups = (await chefGroupRows()).filter((g) => reader.canView(g.name));
  return ok(Object.fromEntries(groups.map((g) => [g.name, groupBody(ctx, g, true)])));
});

route('GET', 'policy_groups/:group', async (ctx) => {
  const reader = policyReader(ctx, 'read policy groups');
  const g = (await chefGroupRows(ctx.params.group))[0];
  if (!g || !reader.canView(g.name)) throw notFound(`policy_group '${ctx.params.group}' not found`);
  return ok(groupBody(ctx, g));
});

route('DELETE', 'policy_groups/:group', async (ctx) => {
  const access = userAccess(ctx, 'delete policy groups');
  const g = (await chefGroupRows(ctx.params.group))[0];
  if (!g || !can(access, 'stage.view', { stage: g.name })) throw notFound(`policy_group '${ctx.params.group}' not found`);
  await deleteStage(access, ctx.params.group, ctx.requestId);
  return ok(groupBody(ctx, g));
});

route('GET', 'policy_groups/:group/policies/:name', async (ctx) => {
  const r = ctx.requestor;
  const allowed = r.kind === 'client' ? clientMay(r, 'converge.read') : can(r.access, 'stage.view', { stage: ctx.params.group });
  if (!allowed) throw notFound(`Cannot load policy ${ctx.params.name} in policy group ${ctx.params.group}`);
  return raw(await groupPolicyDocument(ctx.params.group, ctx.params.name));
});

/**
 * Issue 15: a push into a protected stage opens a promotion request (the
 * revision is stored, the pointer does not move) and answers 403 naming the
 * request's URL, so `chef push` tells its user where to get approval.
 */
function approvalRequired(request: PromotionRequestDto): AppError {
  const why = request.reasons[0]?.message ?? `${request.approvals_required} approval(s)`;
  return new AppError(
    'forbidden',
    `Policy group '${request.stage}' requires approval for this change (${why}). Promotion request ${request.id} was opened instead and nothing changed; get it approved at ${request.url}`,
    [],
    { request: { id: request.id, url: request.url, status: request.status, approvals_required: request.approvals_required } },
  );
}

route('PUT', 'policy_groups/:group/policies/:name', async (ctx) => {
  const access = userAccess(ctx, 'change policy groups');
  const result = await setGroupPolicy(access, { group: ctx.params.group, policy: ctx.params.name, text: chefValidated(ctx, ctx.params.name), ownerTeam: ctx.req.query.get('owner_team') ?? undefined, requestId: ctx.requestId });
  if (result.request) throw approvalRequired(result.request);
  if (result.status === 201) ctx.headers.location = `${ctx.orgUrl}/policy_groups/${ctx.params.group}/policies/${ctx.params.name}`;
  return raw(result.document, result.status);
});

route('DELETE', 'policy_groups/:group/policies/:name', async (ctx) => {
  const access = userAccess(ctx, 'change policy groups');
  const result = await removeGroupPolicy(access, { group: ctx.params.group, policy: ctx.params.name, requestId: ctx.requestId });
  if (result.request) throw approvalRequired(result.request);
  return raw(result.document);
});

// --------------------------------------------------------------------- nodes

route('GET', 'nodes', async (ctx) => ok(Object.fromEntries((await listChefNodes(ctx.requestor)).map((n) => [n, `${ctx.orgUrl}/nodes/${n}`]))));

route('POST', 'nodes', async (ctx) => {
  const node = await createChefNode(ctx.requestor, jsonBody(ctx), ctx.requestId);
  const uri = `${ctx.orgUrl}/nodes/${node.name}`;
  ctx.headers.location = uri;
  return ok({ uri }, 201);
});

route('GET', 'nodes/:name', async (ctx) => ok(await getChefNode(ctx.requestor, ctx.params.name)));
route('HEAD', 'nodes/:name', async (ctx) => {
  await getChefNode(ctx.requestor, ctx.params.name);
  return { status: 200 };
});
route('PUT', 'nodes/:name', async (ctx) => ok(await updateChefNode(ctx.requestor, ctx.params.name, jsonBody(ctx), ctx.requestId)));
route('DELETE', 'nodes/:name', async (ctx) => ok(await deleteChefNode(ctx.requestor, ctx.params.name, ctx.requestId)));

// ------------------------------------------------------------------- clients

function clientBody(ctx: Ctx, c: ClientDto) {
  return { name: c.name, clientname: c.name, orgname: chefOrg(), validator: c.validator, json_class: 'Chef::ApiClient', chef_type: 'client' };
}

function keyBody(k: KeyDto) {
  return { name: k.name, public_key: k.publicKey, expiration_date: k.expiresAt ? k.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') : 'infinity' };
}

route('GET', 'clients', async (ctx) => ok(Object.fromEntries((await listClients(ctx.requestor)).map((c) => [c.name, `${ctx.orgUrl}/clients/${c.name}`]))));

route('POST', 'clients', async (ctx) => {
  const { client, key, privateKey } = await createClient(ctx.requestor, jsonBody(ctx), { apiVersion: ctx.apiVersion, requestId: ctx.requestId });
  const uri = `${ctx.orgUrl}/clients/${client.name}`;
  ctx.headers.location = uri;
  if (ctx.apiVersion === 0) return ok({ uri, ...(key ? { public_key: key.publicKey } : {}), ...(privateKey ? { private_key: privateKey } : {}) }, 201);
  const body: Record<string, unknown> = { uri };
  if (key) body.chef_key = { ...keyBody(key), uri: `${uri}/keys/${key.name}`, ...(privateKey ? { private_key: privateKey } : {}) };
  return ok(body, 201);
});

route('GET', 'clients/:name', async (ctx) => ok(clientBody(ctx, await getClient(ctx.requestor, ctx.params.name))));

route('PUT', 'clients/:name', async (ctx) => {
  const { client, renamed, privateKey } = await updateClient(ctx.requestor, ctx.params.name, jsonBody(ctx), { apiVersion: ctx.apiVersion, requestId: ctx.requestId });
  if (renamed) ctx.headers.location = `${ctx.orgUrl}/clients/${client.name}`;
  return ok({ ...clientBody(ctx, client), ...(privateKey ? { private_key: privateKey } : {}) }, renamed ? 201 : 200);
});

route('DELETE', 'clients/:name', async (ctx) => ok(clientBody(ctx, await deleteClient(ctx.requestor, ctx.params.name, ctx.requestId))));

// ---------------------------------------------------------------------- keys

function keyRoutes(prefix: string, kind: KeyOwner['kind'], base: (ctx: Ctx) => string) {
  const owner = async (ctx: Ctx): Promise<KeyOwner> => {
    if (kind === 'user') {
      // Users are server-level in Chef: clients do not exist there (401).
      if (ctx.requestor.kind === 'client') throw new AppError('unauthorized', `Failed to authenticate as '${ctx.requestor.name}'. Ensure that your node_name and client key are correct.`);
      // At the server level a user's keys are read by that user and admins; through the organization by every member.
      if (!ctx.scoped && ctx.requestor.kind === 'user' && !ctx.requestor.access.isAdmin) {
        const u = await userProfile(ctx.params.owner);
        if (u && u.id !== ctx.requestor.access.userId) throw forbidden(`Only '${ctx.params.owner}' and administrators may read these keys here.`);
      }
      // The org-scoped path is read-only (405).
      if (ctx.scoped && ctx.req.method !== 'GET') throw new AppError('method_not_allowed' as never, `Method ${ctx.req.method} is not allowed on ${ctx.req.rawPath}`);
    }
    return { kind, name: ctx.params.owner };
  };
  route('GET', `${prefix}/:owner/keys`, async (ctx) =>
    ok((await listKeys(ctx.requestor, await owner(ctx))).map((k) => ({ uri: `${base(ctx)}/${ctx.params.owner}/keys/${k.name}`, name: k.name, expired: k.expired }))),
  );
  route('POST', `${prefix}/:owner/keys`, async (ctx) => {
    const { key, privateKey } = await createKey(ctx.requestor, await owner(ctx), jsonBody(ctx), ctx.requestId);
    const uri = `${base(ctx)}/${ctx.params.owner}/keys/${key.name}`;
    ctx.headers.location = uri;
    return ok({ uri, ...(privateKey ? { private_key: privateKey } : {}) }, 201);
  });
  route('GET', `${prefix}/:owner/keys/:key`, async (ctx) => ok(keyBody(await getKey(ctx.requestor, await owner(ctx), ctx.params.key))));
  route('PUT', `${prefix}/:owner/keys/:key`, async (ctx) => {
    const body = jsonBody(ctx) as Record<string, unknown>;
    const { key, privateKey, renamed } = await updateKey(ctx.requestor, await owner(ctx), ctx.params.key, body, ctx.requestId);
    if (renamed) ctx.headers.location = `${base(ctx)}/${ctx.params.owner}/keys/${key.name}`;
    // Chef answers with the fields that were sent (a generated key: the new public and private key).
    const full = keyBody(key);
    const sent: Record<string, unknown> = {};
    if (body && typeof body === 'object') {
      if ('name' in body) sent.name = full.name;
      if ('public_key' in body || privateKey) sent.public_key = full.public_key;
      if ('expiration_date' in body) sent.expiration_date = full.expiration_date;
    }
    if (privateKey) sent.private_key = privateKey;
    return ok(sent, renamed ? 201 : 200);
  });
  route('DELETE', `${prefix}/:owner/keys/:key`, async (ctx) => ok(keyBody(await deleteKey(ctx.requestor, await owner(ctx), ctx.params.key, ctx.requestId))));
}
keyRoutes('clients', 'client', (ctx) => `${ctx.orgUrl}/clients`);
keyRoutes('users', 'user', (ctx) => (ctx.scoped ? `${ctx.orgUrl}/users` : `${ctx.req.baseUrl}/users`));

route('GET', 'users/:owner', async (ctx) => {
  const access = userAccess(ctx, 'read users');
  const u = await userProfile(ctx.params.owner);
  void access;
  if (!u) throw notFound(`Could not find user '${ctx.params.owner}'`);
  const [first, ...rest] = u.name.split(' ');
  return ok({ username: u.chefName, display_name: u.name, email: u.email, first_name: first, last_name: rest.join(' ') });
});

// ---------------------------------------------------- sandboxes and artifacts

route('POST', 'sandboxes', async (ctx) => {
  const sb = await createSandbox(ctx.requestor, jsonBody(ctx));
  const uri = `${ctx.orgUrl}/sandboxes/${sb.id}`;
  const checksums = Object.fromEntries(
    Object.entries(sb.checksums).map(([c, v]) => [c, v.needs_upload ? { url: `${ctx.orgUrl}/file_store/sandboxes/${sb.id}/${c}`, needs_upload: true } : { needs_upload: false }]),
  );
  ctx.headers.location = uri;
  return ok({ uri, checksums, sandbox_id: sb.id }, 201);
});

route('PUT', 'sandboxes/:id', async (ctx) => ok(await commitSandbox(ctx.requestor, ctx.params.id, jsonBody(ctx))));

route('PUT', 'file_store/sandboxes/:id/:checksum', async (ctx) => {
  await uploadSandboxFile(ctx.requestor, ctx.params.id, ctx.params.checksum, ctx.req.body, ctx.req.header('content-md5'));
  return { status: 204 };
});

route('GET', 'file_store/checksums/:checksum', async (ctx) => {
  const etag = `"${ctx.params.checksum}"`;
  if (ctx.req.header('if-none-match') === etag) {
    assertCookbookRead(ctx.requestor);
    Object.assign(ctx.headers, { etag, 'cache-control': 'private, max-age=31536000, immutable' });
    return { status: 304 };
  }
  const bytes = await readCookbookFile(ctx.requestor, ctx.params.checksum);
  Object.assign(ctx.headers, { 'content-type': 'application/octet-stream', etag, 'cache-control': 'private, max-age=31536000, immutable', 'content-length': String(bytes.length) });
  return { status: 200, bytes };
});

function artifactList(ctx: Ctx, lists: Map<string, string[]>) {
  const n = ctx.req.query.get('num_versions');
  const limit = n === null || n === 'all' ? Infinity : Math.max(0, Number.parseInt(n, 10) || 0);
  return Object.fromEntries(
    [...lists].map(([name, ids]) => [
      name,
      { url: `${ctx.orgUrl}/cookbook_artifacts/${name}`, versions: ids.slice(0, limit).map((id) => ({ url: `${ctx.orgUrl}/cookbook_artifacts/${name}/${id}`, identifier: id })) },
    ]),
  );
}

route('GET', 'cookbook_artifacts', async (ctx) => ok(artifactList(ctx, await listArtifacts(ctx.requestor))));
route('GET', 'cookbook_artifacts/:name', async (ctx) => ok(artifactList(ctx, await listArtifacts(ctx.requestor, ctx.params.name))));

function withUrls(ctx: Ctx, manifest: Record<string, unknown>) {
  const url = (c: unknown) => `${ctx.orgUrl}/file_store/checksums/${c}`;
  const addUrls = (list: unknown) => (Array.isArray(list) ? list.map((f) => (f && typeof f === 'object' ? { ...f, url: url((f as { checksum?: unknown }).checksum) } : f)) : list);
  const out: Record<string, unknown> = { ...manifest };
  for (const k of ['all_files', 'recipes', 'attributes', 'files', 'templates', 'libraries', 'definitions', 'resources', 'providers', 'root_files']) if (k in out) out[k] = addUrls(out[k]);
  return out;
}

route('GET', 'cookbook_artifacts/:name/:identifier', async (ctx) => ok(withUrls(ctx, (await getArtifact(ctx.requestor, ctx.params.name, ctx.params.identifier)).manifest)));

route('PUT', 'cookbook_artifacts/:name/:identifier', async (ctx) => {
  const r = await putArtifact(ctx.requestor, ctx.params.name, ctx.params.identifier, jsonBody(ctx));
  if (r.status === 201) ctx.headers.location = `${ctx.orgUrl}/cookbook_artifacts/${ctx.params.name}/${ctx.params.identifier}`;
  return ok(withUrls(ctx, r.manifest), r.status);
});

route('DELETE', 'cookbook_artifacts/:name/:identifier', async (ctx) => ok(withUrls(ctx, await deleteArtifact(ctx.requestor, ctx.params.name, ctx.params.identifier))));

// ---------------------------------------------- endpoints chef-client tolerates missing

const tolerated = (what: string): Handler => async () => {
  throw notFound(`${what} is not provided by this server`);
};
route('POST', 'data-collector', tolerated('The data collector'));
route('GET', 'required_recipe', tolerated('A required recipe'));

// -------------------------------------------------------------------- dispatch

const JSON_HEADERS = { 'content-type': 'application/json' };

function apiVersionHeader(requested: number, response: number): string {
  return JSON.stringify({ min_version: String(API_MIN_VERSION), max_version: String(API_MAX_VERSION), request_version: String(requested), response_version: String(response) });
}

function errorBody(message: string, errors: { path: string; message: string }[] = [], extra?: Record<string, unknown>): string {
  if (extra?.[CHEF_STRING_ERROR]) {
    const { [CHEF_STRING_ERROR]: _s, ...rest } = extra;
    return JSON.stringify({ error: message, ...(errors.length ? { errors } : {}), ...rest });
  }
  return JSON.stringify({ error: [message], ...(errors.length ? { errors } : {}), ...extra });
}

function decodeSegment(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** True for the paths this router owns: everything under /organizations, and /users (Chef's server-level users). */
export function isChefPath(path: string): boolean {
  return path === '/organizations' || path.startsWith('/organizations/') || path.startsWith('/users/');
}

/**
 * Serves one Chef API request. The org routes are matched on the path as
 * sent; a path under another org is a 404 naming it; an unknown path is a
 * JSON 404; a known path with another method is a 405 with `Allow`.
 */
export async function handleChef(req: ChefRequest): Promise<ChefResponse> {
  const requestId = sanitizeRequestId(req.header('x-request-id')) ?? randomUUID();
  const headers: Record<string, string> = { ...JSON_HEADERS, 'x-request-id': requestId };
  const reply = (status: number, body: string | Buffer = ''): ChefResponse => ({ status, headers, body: req.method === 'HEAD' ? '' : body });

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
  const org = chefOrg();
  let rel: string[];
  if (segs[0] === 'organizations') {
    if (segs.length < 2) return reply(404, errorBody('Not found: this server serves one organization, ' + org));
    if (segs[1] !== org) return reply(404, errorBody(`organization '${segs[1]}' does not exist.`));
    rel = segs.slice(2);
  } else {
    rel = segs; // /users/…: Chef's server-level user endpoints
  }

  const candidates = routes.map((r) => ({ r, params: match(r.pattern, rel) })).filter((c) => c.params);
  if (!candidates.length) return reply(404, errorBody(`Not found: ${req.rawPath}`));
  const hit = candidates.find((c) => c.r.method === req.method) ?? (req.method === 'HEAD' ? undefined : undefined);
  if (!hit) {
    headers.allow = [...new Set(candidates.map((c) => c.r.method))].join(', ');
    return reply(405, errorBody(`Method ${req.method} is not allowed on ${req.rawPath}`));
  }

  if (req.method === 'GET' && rel.length === 4 && rel[0] === 'policy_groups' && rel[2] === 'policies') {
    const fast = await fastPolicyGet(req, rel[1], rel[3]);
    if (fast) return reply(fast.status, fast.body);
  }

  const auth = await authenticateRequest({ method: req.method, path: req.rawPath, header: req.header, body: req.body });
  if (!auth.ok) {
    if (auth.status === 0) return reply(401, errorBody('missing required authentication header(s) X-Ops-UserId, X-Ops-Timestamp, X-Ops-Sign, X-Ops-Content-Hash, X-Ops-Authorization-1'));
    return reply(auth.status, errorBody(auth.message));
  }
  const orgUrl = `${req.baseUrl}/organizations/${org}`;
  const ctx: Ctx = { req, requestor: auth.requestor, params: hit.params!, apiVersion: version, requestId, orgUrl, headers, scoped: segs[0] === 'organizations' };
  try {
    const result = await hit.r.handler(ctx);
    if (!result) return reply(204);
    if (result.raw !== undefined) return reply(result.status, result.raw);
    if (result.bytes !== undefined) return reply(result.status, result.bytes);
    return reply(result.status, result.json === undefined ? '' : JSON.stringify(result.json));
  } catch (e) {
    const known = asAppError(e);
    if (known && (known.code as string) === 'method_not_allowed') return reply(405, errorBody(known.message));
    if (known) return reply(known.status, errorBody(known.message, known.errors, known.details));
    console.error(`[chef] ${req.method} ${req.rawPath} request ${requestId} failed`, e);
    return reply(500, errorBody('internal service error'));
  }
}

/**
 * GET policy_groups/:g/policies/:p, signed: what every chef-client run starts
 * with. Signature check and read without loading the whole access (two
 * prepared statements); the same rules as the general route. Null: take the
 * general path (no signature, or a database without the fast path).
 */
async function fastPolicyGet(req: ChefRequest, group: string, policy: string): Promise<{ status: number; body: string } | null> {
  if (!hasChefSignature(req.header)) return null;
  const v = await verifyChefRequest({ method: req.method, path: req.rawPath, header: req.header, body: req.body });
  if (!v.ok) return v.status === 0 ? null : { status: v.status, body: errorBody(v.message) };
  const read = fastPolicyRead(v.key.userId, group, policy);
  if (!read || (v.key.userId && v.key.isAdmin === undefined)) return null;
  const allowed = v.key.clientId ? !v.key.validator : v.key.isAdmin || read.level >= 1;
  const missing = `Cannot load policy ${policy} in policy group ${group}`;
  if (!allowed) return v.key.validator ? { status: 403, body: errorBody(`Client '${v.userId}' may not read policies.`) } : { status: 404, body: errorBody(missing) };
  if (read.document === null) return { status: 404, body: errorBody(missing) };
  return { status: 200, body: read.document };
}

/** An incoming X-Request-Id is kept when short and printable, else replaced (never a reason to refuse a request). */
export function sanitizeRequestId(v: string | null | undefined): string | null {
  if (!v) return null;
  const t = v.trim();
  return /^[\x21-\x7e]{1,100}$/.test(t) ? t : null;
}
