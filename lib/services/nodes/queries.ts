import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { db } from '../../db/client';
import { sortedBy } from '../../db/order';

export interface NodeFilter {
  name?: string;
  group?: string;
  policy?: string;
  /** Only nodes running a revision other than their group's active one for their policy. */
  stale?: boolean;
}

export interface NodeDto {
  name: string;
  policy_group: string | null;
  policy_name: string | null;
  revision_id: string | null;
  active_revision_id: string | null;
  stale: boolean;
  platform: string | null;
  platform_version: string | null;
  platform_family: string | null;
  os: string | null;
  last_check_in: string | null;
}

/** Nodes in the stages the reader may view, with whether each runs its group's active revision. */
export async function listNodes(access: Access, f: NodeFilter = {}): Promise<NodeDto[]> {
  const client = db();
  const nodes = await client.node.findMany({
    where: {
      ...(f.name ? { name: f.name } : {}),
      ...(f.group ? { group: { name: f.group } } : {}),
      ...(f.policy ? { policy: { name: f.policy } } : {}),
    },
    orderBy: { name: 'asc' },
    select: {
      name: true,
      groupId: true,
      policyId: true,
      revisionApplied: true,
      platform: true,
      platformVersion: true,
      platformFamily: true,
      os: true,
      lastCheckIn: true,
      group: { select: { name: true } },
      policy: { select: { name: true } },
    },
  }).then(sortedBy((n) => n.name));
  const pointers = await client.groupPolicy.findMany({ select: { groupId: true, policyId: true, revision: { select: { revisionId: true } } } });
  const active = new Map(pointers.map((p) => [`${p.groupId}|${p.policyId}`, p.revision.revisionId]));
  const out: NodeDto[] = [];
  for (const n of nodes) {
    if (!n.group || !can(access, 'stage.view', { stage: n.group.name })) continue;
    const activeRev = active.get(`${n.groupId}|${n.policyId}`) ?? null;
    const stale = activeRev !== null && n.revisionApplied !== activeRev;
    if (f.stale && !stale) continue;
    out.push({
      name: n.name,
      policy_group: n.group.name,
      policy_name: n.policy?.name ?? null,
      revision_id: n.revisionApplied,
      active_revision_id: activeRev,
      stale,
      platform: n.platform,
      platform_version: n.platformVersion,
      platform_family: n.platformFamily,
      os: n.os,
      last_check_in: n.lastCheckIn?.toISOString() ?? null,
    });
  }
  return out;
}
