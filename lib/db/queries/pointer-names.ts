import type { Tx } from '../client';

/**
 * Every stage pointer by name: (stage, policy, the revision id it runs), in four statements whatever the number
 * of pointers. A relation select (`group: { select: { name } }`, …) would load the names with IN lists that
 * Prisma splits into chunks, one more statement per thousand pointers.
 */
export async function pointerNames(tx: Tx): Promise<{ stage: string; policy: string; revisionId: string }[]> {
  const [pointers, groups, policies, revisions] = await Promise.all([
    tx.groupPolicy.findMany({ select: { groupId: true, policyId: true, revisionPk: true } }),
    tx.policyGroup.findMany({ select: { id: true, name: true } }),
    tx.policy.findMany({ select: { id: true, name: true } }),
    tx.policyRevision.findMany({ where: { groups: { some: {} } }, select: { id: true, revisionId: true } }),
  ]);
  const stage = new Map(groups.map((g) => [g.id, g.name]));
  const policy = new Map(policies.map((p) => [p.id, p.name]));
  const revision = new Map(revisions.map((r) => [r.id, r.revisionId]));
  const out: { stage: string; policy: string; revisionId: string }[] = [];
  for (const p of pointers) {
    const s = stage.get(p.groupId);
    const n = policy.get(p.policyId);
    const r = revision.get(p.revisionPk);
    if (s && n && r) out.push({ stage: s, policy: n, revisionId: r });
  }
  return out;
}
