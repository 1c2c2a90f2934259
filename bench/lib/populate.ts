/** Fills a scratch database with N policies across S stages, in bulk, for board benchmarks and tests. */
import { computeRevisionId } from '@/lib/domain';
import type { Db } from '@/lib/db/client';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { contentHash, cookbookDigest } from '@/lib/services/funnel';

export async function populate(client: Db, policies: number, stages: number, nodesPerCell = 3) {
  const groups = [];
  for (let s = 0; s < stages; s++) groups.push(await client.policyGroup.create({ data: { name: `stage-${s}`, position: s } }));
  const team = await client.team.create({ data: { name: 'bench' } });
  const user = await client.user.create({ data: { email: 'bench@example.com', name: 'Bench', passwordHash: 'x', isAdmin: true, orgMemberships: HOME_MEMBERSHIP } });
  for (let p = 0; p < policies; p++) {
    const name = `policy-${String(p).padStart(4, '0')}`;
    const policy = await client.policy.create({ data: { name, ownerTeamId: team.id } });
    const revs: { id: string; revisionId: string }[] = [];
    for (let r = 0; r < 3; r++) {
      const cookbook_locks = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`cb${i}`, { version: `1.${i}.${i < r * 3 ? r : 0}`, identifier: `id-${p}-${i}-${i < r * 3 ? r : 0}` }]));
      const lock = { name, revision_id: '', run_list: ['recipe[cb0::default]'], cookbook_locks, default_attributes: { r } };
      lock.revision_id = computeRevisionId(lock);
      const rev = await client.policyRevision.create({
        data: { policyId: policy.id, revisionId: lock.revision_id, document: JSON.stringify(lock), contentHash: contentHash(lock), computedRevisionId: lock.revision_id, cookbookCount: 12, cookbookDigest: cookbookDigest(lock) },
      });
      revs.push(rev);
    }
    await client.groupPolicy.createMany({ data: groups.map((g, s) => ({ groupId: g.id, policyId: policy.id, revisionPk: revs[Math.max(0, 2 - Math.floor((s * 3) / stages))].id })) });
    await client.node.createMany({
      data: groups.flatMap((g, s) => Array.from({ length: nodesPerCell }, (_, n) => ({ name: `${name}-${g.name}-${n}`, groupId: g.id, policyId: policy.id, revisionApplied: revs[0].revisionId }))),
    });
  }
  return { userId: user.id };
}
