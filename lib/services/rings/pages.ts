/** Issue 30: what the "Start a ringed rollout" form offers: the stages the viewer may change, and each policy's recent revisions with where they run. */
import { can, type Access } from '@/lib/auth/permissions';
import { db } from '../../db/client';
import type { RingStartChoices } from '@/lib/types/rings';

export type { RingStartChoices } from '@/lib/types/rings';

/** How many recent revisions the form offers per policy. */
const PER_POLICY = 20;

export async function ringStartChoices(access: Access): Promise<RingStartChoices> {
  const client = db();
  const [groups, policies, pointers, newest, nodeRows] = await Promise.all([
    client.policyGroup.findMany({ select: { name: true }, orderBy: [{ position: 'asc' }, { name: 'asc' }] }),
    client.policy.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } }),
    client.groupPolicy.findMany({ select: { policyId: true, group: { select: { name: true } }, revision: { select: { revisionId: true } } } }),
    // The newest PER_POLICY revisions of each policy, in one statement whatever the number of policies
    // (a window per policy: a policy whose revisions are all older than other policies' still offers its own).
    client.$queryRawUnsafe<{ id: string }[]>(
      `SELECT "id" FROM (SELECT "id", ROW_NUMBER() OVER (PARTITION BY "policyId" ORDER BY "createdAt" DESC, "revisionId" ASC) AS "rn" FROM "PolicyRevision") t WHERE t."rn" <= ${PER_POLICY}`,
    ),
    // Issue 43: the nodes of each stage and policy, so the form says the blast radius ("3 of 6 nodes first").
    client.node.findMany({ where: { groupId: { not: null }, policyId: { not: null } }, select: { name: true, groupId: true, policyId: true }, take: 50_000 }),
  ]);
  const revisions = newest.length
    ? await client.policyRevision.findMany({
        where: { id: { in: newest.map((r) => r.id) } },
        select: { policyId: true, revisionId: true, createdAt: true, origin: true, createdByEmail: true },
        orderBy: [{ createdAt: 'desc' }, { revisionId: 'asc' }],
      })
    : [];
  const byPolicy = new Map<string, typeof revisions>();
  for (const r of revisions) {
    const list = byPolicy.get(r.policyId);
    if (list) list.push(r);
    else byPolicy.set(r.policyId, [r]);
  }
  const visible = groups.filter((g) => can(access, 'stage.view', { stage: g.name })).map((g) => g.name);
  const seen = new Set(visible);
  const promotable = groups.filter((g) => can(access, 'stage.promote', { stage: g.name }));
  const groupIds = new Map((await client.policyGroup.findMany({ where: { name: { in: promotable.map((g) => g.name) } }, select: { id: true, name: true } })).map((g) => [g.id, g.name]));
  const policyName = new Map(policies.map((p) => [p.id, p.name]));
  const nodes: RingStartChoices['nodes'] = {};
  for (const n of nodeRows) {
    const stage = groupIds.get(n.groupId!);
    const policy = policyName.get(n.policyId!);
    if (stage && policy) ((nodes[stage] ??= {})[policy] ??= []).push(n.name);
  }
  return {
    stages: promotable.map((g) => ({ name: g.name })),
    nodes,
    policies: policies.map((p) => ({
      name: p.name,
      runs: Object.fromEntries(pointers.filter((x) => x.policyId === p.id && seen.has(x.group.name)).map((x) => [x.group.name, x.revision.revisionId])),
      revisions: (byPolicy.get(p.id) ?? []).map((r) => ({ id: r.revisionId, created_at: r.createdAt.toISOString(), origin: r.origin, created_by: r.createdByEmail })),
    })),
  };
}
