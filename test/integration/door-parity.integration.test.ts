/**
 * Issue 44: the door-parity table. One table of cases (resource, actor, input, expected outcome) runs through every
 * door that serves the case — the Chef door (requests signed as Chef's tools sign them, over loopback), /api/v1 (the
 * route handlers with the actor's bearer token) and the console (the server actions with the actor's session for
 * writes, the services the pages call for reads) — and asserts the same allow or deny and the same stored state.
 * The only differences allowed are the INTENDED ones below, each with its reason. Runs on SQLite (`integration`) and
 * on PostgreSQL (`integration-pg`, scripts/test-pg.ts).
 *
 * Outcomes: allowed 200/201/204, accepted 202 (a promotion request was opened), refused 403, hidden 404 (a stage the
 * actor may not view answers exactly as a missing one: docs/architecture.md §5.4), invalid 400. A server action's
 * failure code maps the same way (forbidden, not_found, bad_request). Every refused case asserts the database is
 * unchanged; every allowed write asserts what is stored, and is undone before the next door runs.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiRoutes, accessFor, call, snapshot, tokenFor } from '@/test/helpers';
import { startChefHarness, type ChefActor, type ChefHarness } from '@/test/chef-harness';
import { db } from '@/lib/db/client';
import { runAction } from '@/lib/actions/client';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { putStage, setGroupPolicy } from '@/lib/services/stages';
import { setStageProtection } from '@/lib/services/guards';
import { moveNode } from '@/lib/services/nodes';
import { createClient, deleteClient } from '@/lib/services/clients';
import { setDataBagStages } from '@/lib/services/data-bags';
import { dataBagItemDetail } from '@/lib/services/search';
import { withdrawPromotionRequest } from '@/lib/services/promotion';
import { compare } from '@/lib/db/queries/compare';

const session = vi.hoisted(() => ({ current: null as null | { user: { id: string }; sid: string; sv: number } }));
vi.mock('next-auth', async (importOriginal) => ({ ...(await importOriginal<typeof import('next-auth')>()), getServerSession: async () => session.current }));
// /api/v1 on the node:http front reads the session from the cookie (lib/authn/session-cookie.ts): the same session here.
vi.mock('@/lib/authn/session-cookie', async () => {
  const { accessForSessionClaims } = await import('@/lib/authn/session-claims');
  return {
    sessionAccess: async () => {
      const s = session.current;
      const access = s && (await accessForSessionClaims({ id: s.user.id, sid: s.sid, sv: s.sv }));
      return access ? { ...access, via: 'session' } : null;
    },
  };
});
// Outside a Next request there is no cache to revalidate.
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }));

const { promotePolicyAction } = await import('@/lib/actions/promotion/promote-policy-action');
const { approveRequestAction } = await import('@/lib/actions/requests/request-actions');
const { saveDataBagItemAction } = await import('@/lib/actions/data-bags/data-bag-actions');
const stagePolicyRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
const stageRoute = apiRoutes('/api/v1/policy_groups/[group]');
const stagesRoute = apiRoutes('/api/v1/policy_groups');
const historyRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/history');
const nodesRoute = apiRoutes('/api/v1/nodes');
const diffRoute = apiRoutes('/api/v1/diff');
const requestsRoute = apiRoutes('/api/v1/promotion_requests');
const approveRoute = apiRoutes('/api/v1/promotion_requests/[id]/approve');
const { moveNodeAction } = await import('@/lib/actions/nodes/move-node-action');
const { deleteClientAction } = await import('@/lib/actions/chef/chef-key-actions');
const nodeStageRoute = apiRoutes('/api/v1/nodes/[name]/stage');
const organizationRoute = apiRoutes('/api/v1/organizations/[org]');
const groupRoute = apiRoutes('/api/v1/organizations/[org]/groups/[group]');

type Door = 'chef' | 'api' | 'console';
type Outcome = 'allowed' | 'accepted' | 'refused' | 'hidden' | 'invalid' | 'conflict';
/** The demo's people (lib/seed/demo-data.ts) by Chef name. */
type Person = 'admin' | 'release' | 'dev' | 'viewer' | 'lead' | 'ops';
/** The people, and the organization's validator (the Chef door only). */
type Actor = Person | 'validator';
const EMAIL: Record<Person, string> = { admin: 'admin@example.com', release: 'release@example.com', dev: 'dev@example.com', viewer: 'viewer@example.com', lead: 'lead@example.com', ops: 'ops@example.com' };
/** A person's e-mail (the validator has no console user: it has no /api/v1 token or console session). */
function emailOf(a: Actor): string {
  if (a === 'validator') throw new Error('the validator has no /api/v1 token or console session');
  return EMAIL[a];
}
/** ops@ is taken out of the organization here: the non-member of the cases. */
const OUTSIDER: Person = 'ops';

/** What a door answered, in the table's terms, with the body for comparing answers. */
interface Answer {
  outcome: Outcome | string;
  body: unknown;
  text: string;
}

function fromStatus(status: number, text: string, body: unknown): Answer {
  const outcome = status === 202 ? 'accepted' : status < 300 ? 'allowed' : status === 403 ? 'refused' : status === 404 ? 'hidden' : status === 400 ? 'invalid' : status === 409 ? 'conflict' : `status ${status}`;
  return { outcome, body, text };
}

const CODE: Record<string, Outcome> = { forbidden: 'refused', not_found: 'hidden', bad_request: 'invalid', conflict: 'conflict' };

/** A console door: the action (or the page's service) run as the actor's session; its failure code as an outcome. */
async function consoleAnswer(actor: Actor, run: () => Promise<unknown>): Promise<Answer> {
  const u = await db().user.findUniqueOrThrow({ where: { email: emailOf(actor) }, select: { id: true, sessionVersion: true } });
  session.current = { user: { id: u.id }, sid: randomUUID(), sv: u.sessionVersion };
  try {
    const data = await run();
    return { outcome: (data as { request?: unknown } | null)?.request ? 'accepted' : 'allowed', body: data, text: JSON.stringify(data) };
  } catch (e) {
    const err = e as ActionServerError & { code: string };
    return { outcome: CODE[err.code] ?? `code ${err.code}`, body: err, text: err.message };
  } finally {
    session.current = null;
  }
}

let chef: ChefHarness;
const chefAs = (a: Actor) => a as ChefActor;
async function chefAnswer(actor: Actor, method: string, path: string, body?: unknown): Promise<Answer> {
  const r = await chef.request(method, path, { as: chefAs(actor), body });
  return fromStatus(r.status, r.text, r.json);
}
async function apiAnswer(actor: Actor, handler: Parameters<typeof call>[0], method: string, opts: { params?: Record<string, string>; query?: string; body?: string | object } = {}): Promise<Answer> {
  const r = await call(handler, method, { token: await tokenFor(emailOf(actor)), ...opts });
  return fromStatus(r.status, r.text, r.json);
}

/** The revision id a stage runs for a policy (null: none). */
async function active(stage: string, policy: string): Promise<string | null> {
  const gp = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return gp?.revision.revisionId ?? null;
}
async function revisionDoc(policy: string, revisionId: string): Promise<string> {
  return (await db().policyRevision.findFirstOrThrow({ where: { policy: { name: policy }, revisionId }, select: { document: true } })).document;
}

// ------------------------------------------------------------------------------------------------ the fixtures

/** A stage no demo user has a grant on: hidden from everyone but administrators. */
const HIDDEN = 'parity-hidden';
/** A stage that does not exist: a hidden stage must answer exactly as this one. */
const MISSING = 'parity-missing';
/** A protected stage whose only approver is lead@ (administrators are not approvers by right). */
const GUARDED = 'parity-guarded';
const POLICY = 'webapp';
const NODE = 'webapp-dev-01.example.com';
/** A node that does not exist: a node in a hidden stage must answer exactly as this one. */
const MISSING_NODE = 'parity-no-such-node';
const BAG = 'demo_settings';
const ITEM = 'monitoring';
const RESTRICTED_BAG = 'demo_secrets';
const RESTRICTED_ITEM = 'graphite';

let admin: Awaited<ReturnType<typeof accessFor>>;
/** webapp's revisions, oldest first. */
let revs: string[] = [];

beforeAll(async () => {
  chef = await startChefHarness();
  admin = await accessFor(EMAIL.admin);
  revs = (await db().policyRevision.findMany({ where: { policy: { name: POLICY } }, orderBy: { createdAt: 'asc' }, select: { revisionId: true } })).map((r) => r.revisionId);
  await putStage(admin, { name: HIDDEN });
  await setGroupPolicy(admin, { group: HIDDEN, policy: POLICY, text: await revisionDoc(POLICY, revs[0]) });
  await moveNode(admin, NODE, HIDDEN);
  await putStage(admin, { name: GUARDED });
  await setStageProtection(admin, { stage: GUARDED, protected: true, approvalsRequired: 1, rules: [], approvers: ['user:lead@example.com'] });
  // release promotes into the guarded stage; dev and lead view it (dev is no approver).
  const g = await db().policyGroup.findUniqueOrThrow({ where: { name: GUARDED }, select: { id: true } });
  for (const [email, level] of [[EMAIL.release, 'promote'], [EMAIL.dev, 'view'], [EMAIL.lead, 'view']] as const) {
    const u = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    await db().groupPermission.create({ data: { userId: u.id, groupId: g.id, level } });
  }
  // The secrets bag is for production's clients and the users who may view production; here: the hidden stage's.
  await setDataBagStages(admin, RESTRICTED_BAG, [HIDDEN]);
  const outsider = await db().user.findUniqueOrThrow({ where: { email: EMAIL[OUTSIDER] }, select: { id: true } });
  await db().orgMember.deleteMany({ where: { userId: outsider.id } });
  // Each actor's Chef key and API token exist before any case (made on first use, they would change the snapshot).
  await chef.privateKey('validator');
  for (const a of Object.keys(EMAIL) as Person[]) {
    await chef.privateKey(chefAs(a) as Exclude<ChefActor, 'anonymous' | `bearer:${string}`>);
    await tokenFor(EMAIL[a]);
  }
}, 180_000);

afterAll(async () => {
  await chef?.close();
});

// ------------------------------------------------------------------------------------------------ the table

/**
 * How each door makes a call, per resource and operation: Chef's path and verb, the /api/v1 route, the action or
 * the page's service. A door missing from an entry does not serve the operation.
 */
type Input = Record<string, string>;
type Adapter = Partial<Record<Door, (actor: Actor, input: Input) => Promise<Answer>>>;

const DOORS: Record<string, Adapter> = {
  'stage-policy read': {
    chef: (a, i) => chefAnswer(a, 'GET', `policy_groups/${i.stage}/policies/${i.policy}`),
    api: (a, i) => apiAnswer(a, stagePolicyRoute.GET, 'GET', { params: { group: i.stage, name: i.policy } }),
  },
  'stage read': {
    chef: (a, i) => chefAnswer(a, 'GET', `policy_groups/${i.stage}`),
    api: (a, i) => apiAnswer(a, stageRoute.GET, 'GET', { params: { group: i.stage } }),
  },
  'stage diff read': {
    api: (a, i) => apiAnswer(a, diffRoute.GET, 'GET', { query: `policy=${i.policy}&from=${i.from}&to=${i.stage}` }),
    console: (a, i) => consoleAnswer(a, async () => compare(await accessFor(emailOf(a)), i.policy, i.from, i.stage)),
  },
  'stage-history read': {
    api: (a, i) => apiAnswer(a, historyRoute.GET, 'GET', { params: { group: i.stage, name: i.policy } }),
  },
  'stage-policy push': {
    chef: async (a, i) => chefAnswer(a, 'PUT', `policy_groups/${i.stage}/policies/${i.policy}`, await revisionDoc(i.policy, i.revision)),
    api: async (a, i) => apiAnswer(a, stagePolicyRoute.PUT, 'PUT', { params: { group: i.stage, name: i.policy }, body: await revisionDoc(i.policy, i.revision) }),
    console: (a, i) => consoleAnswer(a, async () => runAction(promotePolicyAction, { policy: i.policy, from: `rev:${i.revision}`, to: i.stage, expectedRevisionId: await active(i.stage, i.policy) })),
  },
  'data-bag-item read': {
    chef: (a, i) => chefAnswer(a, 'GET', `data/${i.bag}/${i.item}`),
    console: (a, i) => consoleAnswer(a, async () => dataBagItemDetail(await accessFor(emailOf(a)), i.bag, i.item)),
  },
  'data-bag-item write': {
    chef: (a, i) => chefAnswer(a, 'PUT', `data/${i.bag}/${i.item}`, JSON.parse(i.json)),
    console: (a, i) => consoleAnswer(a, () => runAction(saveDataBagItemAction, { bag: i.bag, id: i.item, json: i.json })),
  },
  'node move': {
    api: (a, i) => apiAnswer(a, nodeStageRoute.PUT, 'PUT', { params: { name: i.node }, body: { stage: i.stage } }),
    console: (a, i) => consoleAnswer(a, () => runAction(moveNodeAction, { name: i.node, stage: i.stage })),
  },
  'organization read': {
    chef: (a) => chefAnswer(a, 'GET', `/organizations/${chef.org}`),
    api: (a) => apiAnswer(a, organizationRoute.GET, 'GET', { params: { org: chef.org } }),
  },
  'group read': {
    chef: (a, i) => chefAnswer(a, 'GET', `groups/${i.group}`),
    api: (a, i) => apiAnswer(a, groupRoute.GET, 'GET', { params: { org: chef.org, group: i.group } }),
  },
  // Chef API clients: created on the Chef door only (the validator's one right; /api/v1 has no client routes).
  'client create': {
    chef: (a, i) => chefAnswer(a, 'POST', 'clients', { name: i.client }),
  },
  'client delete': {
    chef: (a, i) => chefAnswer(a, 'DELETE', `clients/${i.client}`),
    console: (a, i) => consoleAnswer(a, () => runAction(deleteClientAction, { name: i.client })),
  },
  'request approve': {
    api: (a, i) => apiAnswer(a, approveRoute.POST, 'POST', { params: { id: i.id }, body: {} }),
    console: (a, i) => consoleAnswer(a, () => runAction(approveRequestAction, { id: i.id })),
  },
};

interface Case {
  /** Behaviour, as the test's name. */
  name: string;
  resource: keyof typeof DOORS;
  actor: Actor;
  /** The input, or a function making it before each door (a fresh request to approve). */
  input: Input | (() => Promise<Input>);
  expect: Outcome;
  /** Allowed writes: what the database holds after (asserted per door); refusals assert an unchanged snapshot. */
  stored?: (input: Input, answer: Answer) => Promise<void>;
  /** Undoes an allowed write before the next door. */
  undo?: (input: Input) => Promise<void>;
  /** The same answer body (after naming the stage alike) as this case: a hidden stage answers as a missing one. */
  sameAs?: string;
}

/**
 * The one kind of intended difference: a push into a protected stage opens a promotion request on every door, but
 * Chef's door answers 403 naming the request (so `chef push` fails and says where to get approval), while /api/v1
 * and the console answer 202 / the request.
 */
const INTENDED: Array<{ resource: string; door: Door; from: Outcome; to: Outcome; why: string }> = [
  { resource: 'stage-policy push', door: 'chef', from: 'accepted', to: 'refused', why: 'chef push must fail on a change that waits for approval; the 403 names the request it opened' },
];

/** A push of a webapp revision the stage does not run. */
async function another(stage: string): Promise<Input> {
  const current = await active(stage, POLICY);
  return { stage, policy: POLICY, revision: revs.find((r) => r !== current)! };
}

const stored = (id: string) => db().promotionRequest.findUniqueOrThrow({ where: { id }, select: { status: true } });
/** Opens a promotion request into the guarded stage as release (the revision not running there yet). */
async function openRequest(): Promise<Input> {
  const current = await active(GUARDED, POLICY);
  const to = revs.find((r) => r !== current)!;
  const res = await setGroupPolicy(await accessFor(EMAIL.release), { group: GUARDED, policy: POLICY, text: await revisionDoc(POLICY, to) });
  if (!res.request) throw new Error('no promotion request was opened');
  return { id: res.request.id, revision: to };
}

/** The stage a node is in (null: none). */
async function stageOfNode(name: string): Promise<string | null> {
  return (await db().node.findUniqueOrThrow({ where: { name }, select: { group: { select: { name: true } } } })).group?.name ?? null;
}
/** A demo node in dev (not the one moved to the hidden stage), to move to `stage`. */
async function devNode(stage: string): Promise<Input> {
  const n = await db().node.findFirstOrThrow({ where: { group: { name: 'dev' }, name: { not: NODE } }, orderBy: { name: 'asc' }, select: { name: true } });
  return { node: n.name, stage };
}

const clientExists = async (name: string) => !!(await db().chefClient.findFirst({ where: { name }, select: { id: true } }));
/** A fresh client for each door (deleting it must find one). */
async function freshClient(): Promise<Input> {
  const name = `parity-${randomUUID().slice(0, 8)}`;
  await createClient(admin, { name }, { apiVersion: 1 });
  return { client: name };
}
const dropClient = async (i: Input) => {
  if (await clientExists(i.client)) await deleteClient(admin, i.client);
};

const CASES: Case[] = [
  // Policy reads: a visible stage, a hidden one, a missing one (hidden answers as missing, 404, on every door).
  { name: 'a viewer reads the policy a visible stage runs', resource: 'stage-policy read', actor: 'viewer', input: { stage: 'dev', policy: POLICY }, expect: 'allowed' },
  { name: 'a user reads a policy in a stage that does not exist', resource: 'stage-policy read', actor: 'dev', input: { stage: MISSING, policy: POLICY }, expect: 'hidden' },
  { name: 'a user reads a policy in a stage hidden from them', resource: 'stage-policy read', actor: 'dev', input: { stage: HIDDEN, policy: POLICY }, expect: 'hidden', sameAs: 'a user reads a policy in a stage that does not exist' },
  { name: 'an administrator reads the policy of a stage no one else sees', resource: 'stage-policy read', actor: 'admin', input: { stage: HIDDEN, policy: POLICY }, expect: 'allowed' },
  { name: 'a user reads a stage that does not exist', resource: 'stage read', actor: 'dev', input: { stage: MISSING }, expect: 'hidden' },
  { name: 'a user reads a stage hidden from them', resource: 'stage read', actor: 'dev', input: { stage: HIDDEN }, expect: 'hidden', sameAs: 'a user reads a stage that does not exist' },
  { name: 'a user reads the history of a policy in a stage that does not exist', resource: 'stage-history read', actor: 'dev', input: { stage: MISSING, policy: POLICY }, expect: 'hidden' },
  { name: 'a user reads the history of a policy in a stage hidden from them', resource: 'stage-history read', actor: 'dev', input: { stage: HIDDEN, policy: POLICY }, expect: 'hidden', sameAs: 'a user reads the history of a policy in a stage that does not exist' },
  { name: 'a user compares a policy with a stage that does not exist', resource: 'stage diff read', actor: 'dev', input: { policy: POLICY, from: 'dev', stage: MISSING }, expect: 'hidden' },
  { name: 'a user compares a policy with a stage hidden from them', resource: 'stage diff read', actor: 'dev', input: { policy: POLICY, from: 'dev', stage: HIDDEN }, expect: 'hidden', sameAs: 'a user compares a policy with a stage that does not exist' },
  { name: 'a viewer compares a policy between two stages they see', resource: 'stage diff read', actor: 'viewer', input: { policy: POLICY, from: 'dev', stage: 'production' }, expect: 'allowed' },
  // Pushes and promotions.
  {
    name: 'a developer moves a revision into a stage they may promote into',
    resource: 'stage-policy push',
    actor: 'dev',
    input: async () => ({ ...(await another('dev')), was: (await active('dev', POLICY))! }),
    expect: 'allowed',
    stored: async (i) => expect(await active(i.stage, i.policy)).toBe(i.revision),
    undo: async (i) => void (await setGroupPolicy(admin, { group: i.stage, policy: i.policy, text: await revisionDoc(i.policy, i.was) })),
  },
  { name: 'a developer moves a revision into a stage they only view', resource: 'stage-policy push', actor: 'dev', input: () => another('staging'), expect: 'refused' },
  { name: 'a developer moves a revision into a stage hidden from them', resource: 'stage-policy push', actor: 'dev', input: async () => ({ stage: HIDDEN, policy: POLICY, revision: revs[revs.length - 1] }), expect: 'refused' },
  {
    name: 'a release manager moves a revision into a protected stage: a promotion request is opened, nothing moves',
    resource: 'stage-policy push',
    actor: 'release',
    input: async () => ({ ...(await another(GUARDED)), was: (await active(GUARDED, POLICY)) ?? '' }),
    expect: 'accepted',
    stored: async (i) => {
      expect(await active(i.stage, i.policy)).toBe(i.was || null);
      const open = await db().promotionRequest.findMany({ where: { group: { name: i.stage }, policyName: i.policy, status: 'pending' }, select: { id: true } });
      expect(open).toHaveLength(1);
    },
    undo: async (i) => {
      for (const r of await db().promotionRequest.findMany({ where: { group: { name: i.stage }, policyName: i.policy, status: 'pending' }, select: { id: true } })) await withdrawPromotionRequest(admin, { id: r.id });
    },
  },
  // Data bag items: everyone reads an unrestricted bag; only administrators and teams granted write change it.
  { name: 'a viewer reads an item of an unrestricted bag', resource: 'data-bag-item read', actor: 'viewer', input: { bag: BAG, item: ITEM }, expect: 'allowed' },
  { name: 'a developer reads an item of a bag restricted to a stage they may not view', resource: 'data-bag-item read', actor: 'dev', input: { bag: RESTRICTED_BAG, item: RESTRICTED_ITEM }, expect: 'refused' },
  {
    name: 'an administrator changes a data bag item',
    resource: 'data-bag-item write',
    actor: 'admin',
    input: async () => ({ bag: BAG, item: ITEM, json: JSON.stringify({ id: ITEM, retention_days: 30 }), was: (await db().dataBagItem.findFirstOrThrow({ where: { bag: { name: BAG }, itemId: ITEM }, select: { document: true } })).document }),
    expect: 'allowed',
    stored: async (i) => expect(JSON.parse((await db().dataBagItem.findFirstOrThrow({ where: { bag: { name: BAG }, itemId: ITEM }, select: { document: true } })).document)).toEqual({ id: ITEM, retention_days: 30 }),
    undo: async (i) => void (await db().dataBagItem.updateMany({ where: { bag: { name: BAG }, itemId: ITEM }, data: { document: i.was } })),
  },
  { name: 'a developer without a grant changes a data bag item', resource: 'data-bag-item write', actor: 'dev', input: { bag: BAG, item: ITEM, json: JSON.stringify({ id: ITEM, retention_days: 1 }) }, expect: 'refused' },
  // Node moves between stages (Chef's door never moves a node: the node's policy_group is not its stage, issue 41).
  {
    name: 'a developer moves a node between two stages they may promote into',
    resource: 'node move',
    actor: 'dev',
    input: () => devNode('qa'),
    expect: 'allowed',
    stored: async (i) => expect(await stageOfNode(i.node)).toBe('qa'),
    undo: async (i) => void (await moveNode(admin, i.node, 'dev')),
  },
  { name: 'a developer moves a node into a stage they only view', resource: 'node move', actor: 'dev', input: () => devNode('staging'), expect: 'refused' },
  { name: 'a viewer moves a node', resource: 'node move', actor: 'viewer', input: () => devNode('qa'), expect: 'refused' },
  { name: 'a developer moves a node into a stage hidden from them', resource: 'node move', actor: 'dev', input: () => devNode(HIDDEN), expect: 'refused' },
  { name: 'a developer moves a node that does not exist', resource: 'node move', actor: 'dev', input: { node: MISSING_NODE, stage: 'qa' }, expect: 'hidden' },
  { name: 'a developer moves a node in a stage hidden from them', resource: 'node move', actor: 'dev', input: { node: NODE, stage: 'qa' }, expect: 'hidden', sameAs: 'a developer moves a node that does not exist' },
  // The organization and its groups: its members read them; a user outside it does not, on either door.
  { name: 'a member reads the organization', resource: 'organization read', actor: 'viewer', input: {}, expect: 'allowed' },
  { name: 'a user outside the organization reads it', resource: 'organization read', actor: OUTSIDER, input: {}, expect: 'refused' },
  { name: 'a member reads the organization’s admins group', resource: 'group read', actor: 'viewer', input: { group: 'admins' }, expect: 'allowed' },
  { name: 'a user outside the organization reads its admins group', resource: 'group read', actor: OUTSIDER, input: { group: 'admins' }, expect: 'refused' },
  // Clients: the validator and administrators create them; a member who is no org admin does not; deleting is the org admins'.
  {
    name: 'the validator registers a client',
    resource: 'client create',
    actor: 'validator',
    input: async () => ({ client: `parity-${randomUUID().slice(0, 8)}` }),
    expect: 'allowed',
    stored: async (i) => expect(await clientExists(i.client)).toBe(true),
    undo: dropClient,
  },
  { name: 'an administrator creates a client', resource: 'client create', actor: 'admin', input: async () => ({ client: `parity-${randomUUID().slice(0, 8)}` }), expect: 'allowed', stored: async (i) => expect(await clientExists(i.client)).toBe(true), undo: dropClient },
  { name: 'a viewer creates a client', resource: 'client create', actor: 'viewer', input: async () => ({ client: `parity-${randomUUID().slice(0, 8)}` }), expect: 'refused' },
  { name: 'a viewer deletes a client', resource: 'client delete', actor: 'viewer', input: freshClient, expect: 'refused', undo: dropClient },
  { name: 'an administrator deletes a client', resource: 'client delete', actor: 'admin', input: freshClient, expect: 'allowed', stored: async (i) => expect(await clientExists(i.client)).toBe(false), undo: dropClient },
  // Promotion requests: only the stage's approvers decide; administrators are not approvers by right.
  { name: 'a viewer of the stage who is no approver approves a request', resource: 'request approve', actor: 'dev', input: openRequest, expect: 'refused', undo: (i) => withdrawPromotionRequest(admin, { id: i.id }).then(() => undefined) },
  { name: 'an administrator who is no approver approves a request', resource: 'request approve', actor: 'admin', input: openRequest, expect: 'refused', undo: (i) => withdrawPromotionRequest(admin, { id: i.id }).then(() => undefined) },
  {
    name: "the stage's approver approves a request: it is applied",
    resource: 'request approve',
    actor: 'lead',
    input: openRequest,
    expect: 'allowed',
    stored: async (i) => {
      expect((await stored(i.id)).status).toBe('applied');
      expect(await active(GUARDED, POLICY)).toBe(i.revision);
    },
  },
];

const answers = new Map<string, Map<Door, Answer>>();
const norm = (t: string) => t.replaceAll(HIDDEN, 'STAGE').replaceAll(MISSING, 'STAGE').replaceAll(MISSING_NODE, 'NODE').replaceAll(NODE, 'NODE').replace(/"request_id":"[^"]*"/g, '');

describe('door parity: one table through the Chef door, /api/v1 and the console', () => {
  for (const c of CASES) {
    const doors = Object.keys(DOORS[c.resource]) as Door[];
    it(`${c.name} (${c.resource}, ${c.actor}: ${c.expect} on ${doors.join(', ')})`, async () => {
      const got = new Map<Door, Answer>();
      for (const door of doors) {
        const input = typeof c.input === 'function' ? await c.input() : c.input;
        const before = snapshot();
        const answer = await DOORS[c.resource][door]!(c.actor, input);
        got.set(door, answer);
        const intended = INTENDED.find((d) => d.resource === c.resource && d.door === door && d.from === c.expect);
        expect(answer.outcome, `${door}: ${answer.text.slice(0, 300)}`).toBe(intended?.to ?? c.expect);
        if (c.expect === 'refused' || c.expect === 'hidden' || c.expect === 'invalid') expect(snapshot(), `${door} changed the database`).toBe(before);
        else if (c.stored) await c.stored(input, answer);
        if (c.undo) await c.undo(input);
      }
      answers.set(c.name, got);
      if (c.sameAs) {
        const other = answers.get(c.sameAs)!;
        for (const door of doors) expect(norm(got.get(door)!.text), `${door}: hidden and missing answer alike`).toBe(norm(other.get(door)!.text));
      }
    });
  }
});

describe('door parity: lists show the same things on every door', () => {
  it('policy groups: a user sees the stages they may view, an administrator every stage, on both doors', async () => {
    for (const actor of ['dev', 'admin'] as const) {
      const viaChef = Object.keys((await chef.request('GET', 'policy_groups', { as: actor })).json).sort();
      const viaApi = Object.keys((await call(stagesRoute.GET, 'GET', { token: await tokenFor(EMAIL[actor]) })).json).sort();
      expect(viaApi).toEqual(viaChef);
      expect(viaChef.includes(HIDDEN)).toBe(actor === 'admin');
    }
  });

  it('nodes: a node in a stage hidden from the user is in neither door’s answer, and both doors give it to an administrator', async () => {
    const chefRead = await chef.request('GET', `nodes/${NODE}`, { as: 'dev' });
    const chefMissing = await chef.request('GET', 'nodes/parity-no-such-node', { as: 'dev' });
    expect(chefRead.status).toBe(404);
    expect(chefRead.text.replace(NODE, 'N')).toBe(chefMissing.text.replace('parity-no-such-node', 'N'));
    expect(Object.keys((await chef.request('GET', 'nodes', { as: 'dev' })).json)).not.toContain(NODE);
    const viaApi = (await call(nodesRoute.GET, 'GET', { token: await tokenFor(EMAIL.dev) })).json.nodes.map((n: { name: string }) => n.name);
    expect(viaApi).not.toContain(NODE);
    expect((await chef.request('GET', `nodes/${NODE}`, { as: 'admin' })).status).toBe(200);
    const adminApi = (await call(nodesRoute.GET, 'GET', { token: await tokenFor(EMAIL.admin), query: `group=${HIDDEN}` })).json.nodes.map((n: { name: string }) => n.name);
    expect(adminApi).toContain(NODE);
  });

  it('promotion requests: ?status=all lists every status (as no status does)', async () => {
    const token = await tokenFor(EMAIL.admin);
    const all = await call(requestsRoute.GET, 'GET', { token, query: 'status=all' });
    expect(all.status, all.text).toBe(200);
    const none = await call(requestsRoute.GET, 'GET', { token });
    expect(all.json.requests.map((r: { id: string }) => r.id)).toEqual(none.json.requests.map((r: { id: string }) => r.id));
    expect(new Set(all.json.requests.map((r: { status: string }) => r.status)).size).toBeGreaterThan(1);
  });

  it('history rows use the contract’s names (snake_case: from_revision_id, to_revision_id)', async () => {
    const res = await call(historyRoute.GET, 'GET', { token: await tokenFor(EMAIL.viewer), params: { group: 'dev', name: POLICY } });
    expect(res.status).toBe(200);
    expect(res.json.history.length).toBeGreaterThan(0);
    for (const row of res.json.history) {
      expect(Object.keys(row)).toEqual(expect.arrayContaining(['at', 'kind', 'from_revision_id', 'to_revision_id', 'actor', 'reason']));
      expect(Object.keys(row).filter((k) => /[A-Z]/.test(k))).toEqual([]);
    }
  });
});
