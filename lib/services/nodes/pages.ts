import { canReadNode, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';

export interface NodePage {
  name: string;
  stage: string | null;
  policy: string | null;
  reportedGroup: string | null;
  reportedPolicy: string | null;
  revisionApplied: string | null;
  activeRevisionId: string | null;
  platform: string | null;
  platformVersion: string | null;
  os: string | null;
  lastCheckIn: string | null;
  chefVersion: string | null;
  fqdn: string | null;
  ipaddress: string | null;
  runList: string[];
  saved: boolean;
}

/** A node's facts and the Chef run data that matters; null when missing or not viewable (indistinguishable). */
export async function nodePage(access: Access, name: string): Promise<NodePage | null> {
  const n = await db().node.findUnique({
    where: { name },
    select: {
      name: true,
      chefDocument: true,
      reportedGroup: true,
      reportedPolicy: true,
      revisionApplied: true,
      platform: true,
      platformVersion: true,
      os: true,
      lastCheckIn: true,
      groupId: true,
      policyId: true,
      group: { select: { name: true } },
      policy: { select: { name: true } },
    },
  });
  if (!n) return null;
  if (!canReadNode(access, n.group?.name ?? null)) return null;
  const active =
    n.groupId && n.policyId
      ? await db().groupPolicy.findUnique({ where: { groupId_policyId: { groupId: n.groupId, policyId: n.policyId } }, select: { revision: { select: { revisionId: true } } } })
      : null;
  const doc = n.chefDocument ? (JSON.parse(n.chefDocument) as Record<string, any>) : null;
  const auto = (doc?.automatic ?? {}) as Record<string, any>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    name: n.name,
    stage: n.group?.name ?? null,
    policy: n.policy?.name ?? null,
    reportedGroup: n.reportedGroup,
    reportedPolicy: n.reportedPolicy,
    revisionApplied: n.revisionApplied,
    activeRevisionId: active?.revision.revisionId ?? null,
    platform: n.platform,
    platformVersion: n.platformVersion,
    os: n.os,
    lastCheckIn: n.lastCheckIn?.toISOString() ?? null,
    chefVersion: str(auto.chef_packages?.chef?.version),
    fqdn: str(auto.fqdn),
    ipaddress: str(auto.ipaddress),
    runList: Array.isArray(doc?.run_list) ? doc.run_list.filter((x: unknown) => typeof x === 'string') : [],
    saved: !!doc,
  };
}

