import { db } from '../client';

export interface ChefKeyCandidate {
  keyId: string;
  keyName: string;
  publicKey: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  userId: string | null;
  clientId: string | null;
  clientName: string | null;
  validator: boolean;
}

/**
 * Every key of the active user or the client named `name` (one query): what a
 * Chef-signed request may have been signed with. Users and clients share one
 * namespace (ChefName), so at most one of them matches.
 */
export async function chefKeysFor(name: string): Promise<ChefKeyCandidate[]> {
  const rows = await db().$queryRaw<
    { keyId: string; keyName: string; publicKey: string; expiresAt: Date | string | null; lastUsedAt: Date | string | null; userId: string | null; clientId: string | null; clientName: string | null; validator: number | boolean | null }[]
  >`
    SELECT k."id" AS "keyId", k."name" AS "keyName", k."publicKey" AS "publicKey", k."expiresAt" AS "expiresAt", k."lastUsedAt" AS "lastUsedAt",
           k."userId" AS "userId", k."clientId" AS "clientId", c."name" AS "clientName", c."validator" AS "validator"
      FROM "ChefKey" k
      LEFT JOIN "User" u ON u."id" = k."userId"
      LEFT JOIN "ChefClient" c ON c."id" = k."clientId"
     WHERE (u."chefName" = ${name} AND u."active" = true) OR c."name" = ${name}`;
  const date = (v: Date | string | null) => (v === null ? null : new Date(v));
  return rows.map((r) => ({ ...r, expiresAt: date(r.expiresAt), lastUsedAt: date(r.lastUsedAt), validator: !!r.validator }));
}

/** Records that a key (and its client) was used, at most once a minute; a failed write never fails the request. */
export async function touchChefKey(c: ChefKeyCandidate, now = new Date()): Promise<void> {
  if (c.lastUsedAt && now.getTime() - c.lastUsedAt.getTime() < 60_000) return;
  try {
    await db().chefKey.update({ where: { id: c.keyId }, data: { lastUsedAt: now } });
    if (c.clientId) await db().chefClient.update({ where: { id: c.clientId }, data: { lastSeenAt: now } });
  } catch {
    /* bookkeeping only */
  }
}

/**
 * What a client's rights depend on (one round trip): the organization's
 * "stage isolation" setting and the client's stage, the stage of the node
 * named like it (a known stage, as node reads compare; null otherwise).
 */
export async function clientContext(clientName: string): Promise<{ stage: string | null; stageIsolation: boolean }> {
  const rows = await db().$queryRaw<{ stageIsolation: number | boolean | null; stage: string | null }[]>`
    SELECT (SELECT s."stageIsolation" FROM "OrgSetting" s WHERE s."id" = 'org') AS "stageIsolation",
           (SELECT g."name" FROM "Node" n JOIN "PolicyGroup" g ON g."id" = n."groupId" WHERE n."name" = ${clientName}) AS "stage"`;
  const row = rows[0];
  return { stage: row?.stage ?? null, stageIsolation: !!row?.stageIsolation };
}
