import { createHash } from 'node:crypto';
import { db } from '@/lib/db/client';
import { compareText } from '@/lib/db/order';
import { HOME_ORG_ID } from '@/lib/domain/organizations';

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
