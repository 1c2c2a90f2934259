import { createHash } from 'node:crypto';
import { canReadNode, viewableStages, type Access } from '@/lib/auth/permissions';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { db } from '../client';
import { compareText } from '../order';

/** The SHA-256 fingerprint people compare keys by (of the DER public key), shortened. */
export function keyFingerprint(pem: string): string {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return 'SHA256:' + createHash('sha256').update(der).digest('base64').replace(/=+$/, '').slice(0, 20) + '…';
}

/** Admin page: every client of the home organization (issue 23: another one's are on Admin → Organizations) with its keys and when it was last seen, and the nodes named like them. */
export async function clientsPage() {
  const rows = await db().chefClient.findMany({
    where: { orgId: HOME_ORG_ID },
    orderBy: [{ validator: 'desc' }, { name: 'asc' }],
    select: { name: true, validator: true, createdAt: true, lastSeenAt: true, keys: { select: { name: true, publicKey: true, expiresAt: true, lastUsedAt: true }, orderBy: { name: 'asc' } } },
  });
  // Validator first, then by name (in the application: see lib/db/order.ts).
  rows.sort((a, b) => Number(b.validator) - Number(a.validator) || compareText(a.name, b.name));
  for (const r of rows) r.keys.sort((a, b) => compareText(a.name, b.name));
  const nodes = new Set((await db().node.findMany({ where: { name: { in: rows.map((r) => r.name) } }, select: { name: true } })).map((n) => n.name));
  return rows.map((c) => ({
    name: c.name,
    validator: c.validator,
    createdAt: c.createdAt.toISOString(),
    lastSeenAt: c.lastSeenAt?.toISOString() ?? null,
    hasNode: nodes.has(c.name),
    keys: c.keys.map((k) => ({ name: k.name, fingerprint: keyFingerprint(k.publicKey), expiresAt: k.expiresAt?.toISOString() ?? null, lastUsedAt: k.lastUsedAt?.toISOString() ?? null })),
  }));
}

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

/** Issue 43: the Chef tools page's client.rb choices: the stages the reader may view (promotion order), each with the policies it runs. */
export async function connectChoices(access: Access): Promise<{ stage: string; policies: string[] }[]> {
  const groups = await db().policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { name: true, policies: { select: { policy: { select: { name: true } } } } } });
  return viewableStages(access, groups).map((g) => ({ stage: g.name, policies: g.policies.map((p) => p.policy.name).sort(compareText) }));
}
