/**
 * Chef node objects (GET/POST/PUT/DELETE/HEAD /nodes[/name]) with Chef
 * Server's validation. The console's node facts (stage, policy, platform, last
 * check-in, the revision applied) come from what chef-client saves. A node
 * reporting a stage or policy the console does not know is still stored, with
 * the names it reported.
 *
 * Who may read and write: the permission table's `node.read`, `node.report`
 * and `node.delete` rows (lib/auth/permissions.ts): a user by the node's stage
 * (its current one and, for a move, the one it moves to; a node in no known
 * stage: admins write it); a client reads every node (within its own stage
 * under stage isolation) and writes only its own node (named like it).
 * Issue 41 (docs/stage-binding.md, lib/services/stages/binding.ts): a client
 * never moves its node; it places it in a stage once, by its enrollment.
 *
 * One write for every entry point: Chef's POST/PUT (the node object as
 * chef-client saves it) and the console API's check-in (`reportNode`, PUT
 * /api/v1/nodes/:name, whose facts are set on the stored node object) both
 * store through `write`, with the same permission checks, search index and
 * audit events.
 */
import { db, type Tx } from '@/lib/db/client';
import { assertCan, can, refusal, type Actor } from '@/lib/auth/permissions';
import { NAME_PATTERN } from '@/lib/domain';
import { chefName } from '@/lib/validation/fields';
import { z } from 'zod';
import { badRequest, conflict, forbidden, notFound, type FieldError } from '@/lib/errors';
import type { Access } from '@/lib/auth/permissions';
import { audit, requireGroup, parseInput, transaction, IMPORT_VIA_PREFIX } from '@/lib/services/funnel';
import { indexNode, unindexNode } from '../../db/queries/search-index';
import { sortedBy } from '@/lib/db/order';
import { chefNodeRow, type NodeRow } from '@/lib/db/queries/chef-read-path';
import { JsonNumber, serializeJson } from '@/lib/domain';
import { assertClientPlacement } from '@/lib/services/stages';

const NODE_NAME = /^[A-Za-z0-9_.:-]{1,255}$/;
const ENV_NAME = /^[A-Za-z0-9_-]+$/;
const RUN_LIST_ITEM = /^(?:recipe\[[.A-Za-z0-9_-]+(?:::[.A-Za-z0-9_-]+)?(?:@\d+(?:\.\d+){1,2})?\]|role\[[.A-Za-z0-9_-]+\]|[.A-Za-z0-9_-]+(?:::[.A-Za-z0-9_-]+)?(?:@\d+(?:\.\d+){1,2})?)$/;
const ATTRS = ['normal', 'default', 'override', 'automatic'] as const;
const NODE_KEYS = new Set(['name', 'chef_environment', 'json_class', 'chef_type', 'normal', 'default', 'override', 'automatic', 'run_list', 'policy_name', 'policy_group']);

/** Chef's run-list normalisation: a bare `name` or `name::recipe` becomes `recipe[…]`; duplicates after that are dropped. */
export function normaliseRunList(items: string[]): string[] {
  const out: string[] = [];
  for (const item of items) {
    const n = /^(recipe|role)\[/.test(item) ? item : `recipe[${item}]`;
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

export type ChefNode = Record<string, unknown> & { name: string };

/** Validates a node body as Chef Server does and fills its defaults. Throws a 400 with Chef's message. */
export function normaliseNode(body: unknown, urlName?: string): ChefNode {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Incorrect JSON: expected a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  const b = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ path: `/${field}`, message });
  const unknown = Object.keys(b).find((k) => !NODE_KEYS.has(k));
  if (unknown !== undefined) fail(unknown, `Invalid key ${unknown} in request body`);
  const name = b.name ?? urlName;
  if (name === undefined) fail('name', "Field 'name' missing");
  else if (urlName !== undefined && b.name !== undefined && b.name !== urlName) fail('name', 'Node name mismatch.');
  else if (typeof name !== 'string' || !NODE_NAME.test(name)) fail('name', "Field 'name' invalid");
  if (b.json_class !== undefined && b.json_class !== 'Chef::Node') fail('json_class', "Field 'json_class' invalid");
  if (b.chef_type !== undefined && b.chef_type !== 'node') fail('chef_type', "Field 'chef_type' invalid");
  if (b.chef_environment !== undefined && (typeof b.chef_environment !== 'string' || !ENV_NAME.test(b.chef_environment))) fail('chef_environment', "Field 'chef_environment' invalid");
  if (b.run_list !== undefined && (!Array.isArray(b.run_list) || !b.run_list.every((i) => typeof i === 'string' && RUN_LIST_ITEM.test(i)))) {
    fail('run_list', "Field 'run_list' is not a valid run list");
  }
  for (const a of ATTRS) {
    const v = b[a];
    if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof JsonNumber)) fail(a, `Field '${a}' is not a hash`);
  }
  for (const f of ['policy_name', 'policy_group'] as const) {
    const v = b[f];
    if (v !== undefined && v !== null && (typeof v !== 'string' || !NAME_PATTERN.test(v))) fail(f, `Field '${f}' invalid`);
  }
  if (errors.length) throw badRequest(errors[0].message, errors);
  const node: ChefNode = {
    ...b,
    name: name as string,
    chef_environment: b.chef_environment ?? '_default',
    json_class: 'Chef::Node',
    chef_type: 'node',
    run_list: normaliseRunList((b.run_list as string[] | undefined) ?? []),
  };
  for (const a of ATTRS) node[a] = b[a] ?? {};
  return node;
}

function str(v: unknown, max = 100): string | null {
  return typeof v === 'string' ? v.slice(0, max) : null;
}

/** The console's node facts, from a Chef node object. */
function facts(node: ChefNode) {
  const auto = (node.automatic ?? {}) as Record<string, unknown>;
  return {
    reportedGroup: str(node.policy_group, 255),
    reportedPolicy: str(node.policy_name, 255),
    revisionApplied: str(auto.policy_revision, 255) ?? str((auto.chef_client as Record<string, unknown> | undefined)?.policy_revision, 255),
    platform: str(auto.platform),
    platformVersion: str(auto.platform_version),
    platformFamily: str(auto.platform_family),
    os: str(auto.os),
  };
}

/**
 * The stage and policy a node reports, by name; what the stored node already points at is not looked up again
 * (its `openEnrollment` is then not read: enrollment is judged only when a node enters a stage, issue 41).
 */
async function resolve(tx: Tx, groupName: string | null, policyName: string | null, existing: StoredNode | null) {
  const group: { id: string; name: string; openEnrollment?: boolean } | null = !groupName
    ? null
    : existing?.groupId && existing.group?.name === groupName
      ? { id: existing.groupId, name: groupName }
      : await tx.policyGroup.findUnique({ where: { name: groupName }, select: { id: true, name: true, openEnrollment: true } });
  const policy = !policyName
    ? null
    : existing?.policyId && existing.policy?.name === policyName
      ? { id: existing.policyId }
      : await tx.policy.findUnique({ where: { name: policyName }, select: { id: true } });
  return { group, policy };
}

/**
 * `node.report` on every stage the write touches (where the node is, and where it moves to), each given as
 * [known stage or null, the name as reported]. Issue 28: a reported stage that does not exist is refused with
 * the same words as one the caller may not see (no stage-existence oracle).
 */
function assertWrite(actor: Actor, node: string, stages: [string | null, string | null][]) {
  for (const [stage, reported] of stages) {
    if (can(actor, 'node.report', { node, stage })) continue;
    // The stage a node is in now, when the caller may not even view it: not named (no stage-name oracle).
    if (stage && reported === null && actor.kind === 'user' && !can(actor, 'stage.view', { stage })) {
      throw forbidden(`You may not report node '${node}': a node of that name belongs to a stage you may not report nodes in.`);
    }
    throw forbidden(refusal('node.report', { node, stage: stage ?? reported }, actor));
  }
}

export const NODE_SELECT = {
  id: true,
  name: true,
  groupId: true,
  policyId: true,
  chefDocument: true,
  reportedGroup: true,
  reportedPolicy: true,
  revisionApplied: true,
  platform: true,
  platformVersion: true,
  platformFamily: true,
  os: true,
  group: { select: { name: true } },
  policy: { select: { name: true } },
} as const;

/** A stored node as NODE_SELECT reads it: the same row the prepared read path returns. */
type StoredNode = NodeRow;

/** The Chef node object for a stored node (built from the console's facts when chef-client never saved one). */
export function nodeJson(n: Omit<StoredNode, 'id'>): ChefNode {
  if (n.chefDocument) return JSON.parse(n.chefDocument) as ChefNode;
  const automatic: Record<string, unknown> = {};
  if (n.platform) automatic.platform = n.platform;
  if (n.platformVersion) automatic.platform_version = n.platformVersion;
  if (n.platformFamily) automatic.platform_family = n.platformFamily;
  if (n.os) automatic.os = n.os;
  if (n.revisionApplied) automatic.policy_revision = n.revisionApplied;
  const node: ChefNode = { name: n.name, chef_environment: '_default', json_class: 'Chef::Node', chef_type: 'node', run_list: [], normal: {}, default: {}, override: {}, automatic };
  const g = n.group?.name ?? n.reportedGroup;
  const p = n.policy?.name ?? n.reportedPolicy;
  if (g) node.policy_group = g;
  if (p) node.policy_name = p;
  return node;
}

/** Issue 42: the node object's text as stored (number lexemes as sent), or built from the facts. */
export function nodeDocument(n: Omit<StoredNode, 'id'>): string {
  return n.chefDocument ?? serializeJson(nodeJson(n));
}

/**
 * Issue 42: an imported node's last check-in is its source's `ohai_time` (when it last ran there, never later
 * than now) until it reports to the console itself.
 */
function importedCheckIn(actor: Actor, node: ChefNode): { lastCheckIn: Date } | Record<string, never> {
  if (!actor.via?.startsWith(IMPORT_VIA_PREFIX)) return {};
  const t = Number((node.automatic as Record<string, unknown> | undefined)?.ohai_time);
  if (!Number.isFinite(t) || t <= 0) return {};
  return { lastCheckIn: new Date(Math.min(Date.now(), Math.round(t * 1000))) };
}

function stageOf(n: { group: { name: string } | null }): string | null {
  return n.group?.name ?? null;
}

/**
 * The node, when the actor may see it. Unknown and unviewable look alike
 * (404), so answers do not reveal which nodes exist; an actor with no node
 * rights at all (the validator) is refused outright (403, as Chef does).
 */
function visibleOr404<N extends { name: string; group: { name: string } | null }>(actor: Actor, name: string, n: N | null): N {
  if (n && can(actor, 'node.read', { node: n.name, stage: stageOf(n) })) return n;
  assertCan(actor, 'node.list');
  throw notFound(`node '${name}' not found`);
}

export async function getChefNode(actor: Actor, name: string): Promise<ChefNode> {
  return nodeJson(visibleOr404(actor, name, await chefNodeRow(name)));
}

/** GET /nodes/:name's body: the node as stored, numbers as sent (issue 42). */
export async function getChefNodeDocument(actor: Actor, name: string): Promise<string> {
  return nodeDocument(visibleOr404(actor, name, await chefNodeRow(name)));
}

export async function listChefNodes(actor: Actor): Promise<string[]> {
  assertCan(actor, 'node.list');
  const rows = await db().node.findMany({ orderBy: { name: 'asc' }, select: { name: true, group: { select: { name: true } } } }).then(sortedBy((n) => n.name));
  return rows.filter((n) => can(actor, 'node.read', { node: n.name, stage: stageOf(n) })).map((n) => n.name);
}

/**
 * GET /environments/:env/nodes: the nodes of one Chef environment, as the
 * node list filters them. The console keeps no environment objects (policy
 * groups are its stages): `_default` always exists, another environment
 * exists while a node names it (else Chef's 404).
 */
export async function listChefNodesInEnvironment(actor: Actor, env: string): Promise<string[]> {
  assertCan(actor, 'node.list');
  const rows = await db().node.findMany({ orderBy: { name: 'asc' }, select: { name: true, chefDocument: true, group: { select: { name: true } } } }).then(sortedBy((n) => n.name));
  const envOf = (doc: string | null) => {
    if (!doc) return '_default';
    const e = (JSON.parse(doc) as { chef_environment?: unknown }).chef_environment;
    return typeof e === 'string' ? e : '_default';
  };
  const inEnv = rows.filter((n) => envOf(n.chefDocument) === env);
  if (env !== '_default' && !inEnv.length) throw notFound(`Cannot load environment ${env}`);
  return inEnv.filter((n) => can(actor, 'node.read', { node: n.name, stage: stageOf(n) })).map((n) => n.name);
}

/** Stores a node object (new, or replacing `existing`): the one write of every node entry point. `checkIn`: the write is the node's own check-in (a client saving itself, or a check-in report). */
async function write(tx: Tx, actor: Actor, sent: ChefNode, existing: StoredNode | null, requestId?: string, checkIn = actor.kind === 'client') {
  // Issue 42: stored as sent (a lossless body keeps its number lexemes); the index and the facts read plain JSON.
  const text = serializeJson(sent);
  const node = JSON.parse(text) as ChefNode;
  const f = facts(node);
  const { group, policy } = await resolve(tx, f.reportedGroup, f.reportedPolicy, existing);
  const from = existing ? stageOf(existing) : null;
  const target: [string | null, string | null] = [group?.name ?? null, f.reportedGroup];
  assertWrite(actor, node.name, existing ? [[from, null], target] : [target]);
  // Issue 41: a client places its node in a stage once (enrollment) and never moves it (docs/stage-binding.md).
  if (actor.kind === 'client') assertClientPlacement(actor, node.name, from, group ? { name: group.name, openEnrollment: group.openEnrollment ?? false } : null, f.reportedGroup);
  const data = {
    ...f,
    groupId: group?.id ?? null,
    policyId: policy?.id ?? null,
    chefDocument: text,
    ...(checkIn ? { lastCheckIn: new Date() } : importedCheckIn(actor, node)),
  };
  if (existing) {
    await tx.node.update({ where: { id: existing.id }, data });
    await indexNode(tx, node);
    const prevGroup = existing.group?.name ?? existing.reportedGroup;
    const prevPolicy = existing.policy?.name ?? existing.reportedPolicy;
    if (prevGroup !== f.reportedGroup || prevPolicy !== f.reportedPolicy) {
      await audit(tx, actor, {
        action: 'node.move',
        targetType: 'node',
        target: node.name,
        groupName: f.reportedGroup,
        policyName: f.reportedPolicy,
        before: { policy_group: prevGroup, policy_name: prevPolicy },
        after: { policy_group: f.reportedGroup, policy_name: f.reportedPolicy },
        requestId,
      });
    }
    return;
  }
  // Issue 28: the node belongs to the client that created it (the validator may re-register only that client's name).
  await tx.node.create({ data: { name: node.name, ...data, registeredByClient: actor.kind === 'client' ? actor.name : null } });
  await indexNode(tx, node);
  await audit(tx, actor, { action: 'node.register', targetType: 'node', target: node.name, groupName: f.reportedGroup, policyName: f.reportedPolicy, requestId });
}

/** POST /nodes — 201, or 409 when the name is taken. */
export async function createChefNode(actor: Actor, body: unknown, requestId?: string): Promise<ChefNode> {
  const node = normaliseNode(body);
  return transaction(async (tx) => {
    const existing = await tx.node.findUnique({ where: { name: node.name }, select: { id: true } });
    if (existing) throw conflict('Node already exists');
    try {
      await write(tx, actor, node, null, requestId);
    } catch (e) {
      if ((e as { code?: string }).code === 'P2002') throw conflict('Node already exists');
      throw e;
    }
    return node;
  });
}

/** PUT /nodes/:name — replaces the node object; 404 when it does not exist (Chef's rule). */
export async function updateChefNode(actor: Actor, name: string, body: unknown, requestId?: string): Promise<ChefNode> {
  const node = normaliseNode(body, name);
  return transaction(async (tx) => {
    const existing = visibleOr404(actor, name, await tx.node.findUnique({ where: { name }, select: NODE_SELECT }));
    await write(tx, actor, node, existing, requestId);
    return node;
  });
}

export async function deleteChefNode(actor: Actor, name: string, requestId?: string): Promise<ChefNode> {
  return transaction(async (tx) => {
    const existing = visibleOr404(actor, name, await tx.node.findUnique({ where: { name }, select: NODE_SELECT }));
    assertCan(actor, 'node.delete', { node: name, stage: stageOf(existing) });
    await tx.node.delete({ where: { id: existing.id } });
    await unindexNode(tx, name);
    await audit(tx, actor, { action: 'node.delete', targetType: 'node', target: name, groupName: existing.group?.name ?? existing.reportedGroup, policyName: existing.policy?.name ?? existing.reportedPolicy, requestId });
    return nodeJson(existing);
  });
}

const nodeName = chefName();

/** A check-in report (PUT /api/v1/nodes/:name; the route's contract validated the body, the path gives the name). */
export interface ReportNodeInput {
  name: string;
  policy_group: string;
  policy_name: string;
  revision_id?: string;
  platform?: string;
  platform_version?: string;
  platform_family?: string;
  os?: string;
}

const FACT_KEYS = { platform: 'platform', platform_version: 'platform_version', platform_family: 'platform_family', os: 'os', revision_id: 'policy_revision' } as const;

/**
 * PUT /api/v1/nodes/:name — registers a node or records a check-in, through
 * the same write as Chef's node saves. The stage and the policy must exist
 * (404; a stage the caller may not view is a 403 either way); the reported
 * facts replace the stored ones in the node object (absent ones are
 * cleared). Check-ins are not audited; registering and moving are.
 */
export async function reportNode(access: Access, input: ReportNodeInput): Promise<{ status: 200 | 201 }> {
  const name = parseInput(z.object({ name: nodeName }), { name: input.name }).name;
  return transaction(async (tx) => {
    await requireGroup(tx, input.policy_group, access);
    assertCan(access, 'node.report', { node: name, stage: input.policy_group });
    if (!(await tx.policy.findUnique({ where: { name: input.policy_name }, select: { id: true } }))) throw notFound(`Cannot find policy '${input.policy_name}'`);
    const existing = await tx.node.findUnique({ where: { name }, select: NODE_SELECT });
    const node = existing ? nodeJson(existing) : normaliseNode({ name });
    const automatic = { ...((node.automatic ?? {}) as Record<string, unknown>) };
    for (const [field, key] of Object.entries(FACT_KEYS)) {
      const v = input[field as keyof typeof FACT_KEYS];
      if (v === undefined) delete automatic[key];
      else automatic[key] = v;
    }
    await write(tx, access, { ...node, policy_group: input.policy_group, policy_name: input.policy_name, automatic }, existing, undefined, true);
    return { status: existing ? 200 : 201 };
  });
}

/**
 * Issue 41 (docs/stage-binding.md): a user moves a node to another stage (PUT /api/v1/nodes/:name/stage, the
 * console's Move to stage). The node object is kept; its `policy_group` becomes `stage`, through the one write:
 * `node.report` on the stage it leaves and the one it enters, audited `node.move`. A stage the caller may not
 * view is refused as a missing one; a node the caller may not see is a 404.
 */
export async function moveNode(access: Access, name: string, stage: string, requestId?: string): Promise<{ moved: boolean }> {
  return transaction(async (tx) => {
    await requireGroup(tx, stage, access);
    const existing = visibleOr404(access, name, await tx.node.findUnique({ where: { name }, select: NODE_SELECT }));
    if (existing.group?.name === stage) return { moved: false };
    const node = nodeJson(existing);
    await write(tx, access, { ...node, policy_group: stage }, existing, requestId, false);
    return { moved: true };
  });
}
