import type { Access, StageLevel } from '@/lib/auth/permissions';
import { db } from '../client';
import { touchToken } from './tokens';

const LEVELS: StageLevel[] = ['view', 'promote', 'manage'];

export interface ReadPathResult {
  /** Null when the token is unknown, revoked, expired or its user deactivated. */
  access: Access | null;
  document: string | null;
}

/**
 * The node read path in one round trip: the token's user, that user's level
 * on the stage (own and team grants), and the stored document the stage runs.
 * Nodes poll this; the general path costs four queries. Portable SQL (no
 * SQLite-only syntax). The returned Access carries only this stage's level,
 * which is all the permission check for a read needs.
 */
export async function readPathLookup(secretHash: string, group: string, policy: string, now = new Date()): Promise<ReadPathResult> {
  const rows = await db().$queryRaw<
    { tokenId: string; lastUsedAt: Date | string | null; expiresAt: Date | string | null; userId: string; email: string; name: string; isAdmin: number | boolean; level: number | bigint | null; document: string | null }[]
  >`
    SELECT t."id" AS "tokenId", t."lastUsedAt" AS "lastUsedAt", t."expiresAt" AS "expiresAt",
           u."id" AS "userId", u."email" AS "email", u."name" AS "name", u."isAdmin" AS "isAdmin",
           (SELECT MAX(CASE gp."level" WHEN 'manage' THEN 3 WHEN 'promote' THEN 2 WHEN 'view' THEN 1 ELSE 0 END)
              FROM "GroupPermission" gp JOIN "PolicyGroup" g2 ON g2."id" = gp."groupId"
             WHERE g2."name" = ${group}
               AND (gp."userId" = u."id" OR gp."teamId" IN (SELECT tm."teamId" FROM "TeamMember" tm WHERE tm."userId" = u."id"))) AS "level",
           (SELECT r."document" FROM "GroupPolicy" x
              JOIN "PolicyGroup" g ON g."id" = x."groupId"
              JOIN "Policy" p ON p."id" = x."policyId"
              JOIN "PolicyRevision" r ON r."id" = x."revisionPk"
             WHERE g."name" = ${group} AND p."name" = ${policy}) AS "document"
      FROM "ApiToken" t JOIN "User" u ON u."id" = t."userId"
     WHERE t."secretHash" = ${secretHash} AND t."revokedAt" IS NULL AND u."active" = true`;
  const row = rows[0];
  if (!row) return { access: null, document: null };
  const expires = row.expiresAt ? new Date(row.expiresAt) : null;
  if (expires && expires <= now) return { access: null, document: null };
  await touchToken(row.tokenId, row.lastUsedAt ? new Date(row.lastUsedAt) : null, now);
  const level = row.level === null ? 0 : Number(row.level);
  const stageLevels = new Map<string, StageLevel>();
  if (level > 0) stageLevels.set(group, LEVELS[level - 1]);
  return {
    access: { kind: 'user', userId: row.userId, email: row.email, name: row.name, isAdmin: !!row.isAdmin, teamIds: new Set(), stageLevels, via: 'token' },
    document: row.document,
  };
}
