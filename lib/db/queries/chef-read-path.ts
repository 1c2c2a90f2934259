/**
 * The signed policy read in two prepared SQLite statements, without Prisma:
 * every chef-client run starts with it, so it is the console's hottest path
 * (see bench/chef-read.bench.ts). Returns the requestor's keys and, for a
 * user, the level on the stage; and the stored document. On another database
 * (PostgreSQL) it answers null and the caller takes the general path.
 */
import Database from 'better-sqlite3';
import { databaseFile, databaseUrl } from '../url';
import type { ChefKeyCandidate } from './chef-auth';

type Stmt = ReturnType<Database.Database['prepare']>;
interface Handle {
  url: string;
  keys: Stmt;
  read: Stmt;
}

const g = globalThis as unknown as { __chefReadPath?: Handle | null };

function handle(): Handle | null {
  const url = databaseUrl();
  if (g.__chefReadPath !== undefined && (g.__chefReadPath === null || g.__chefReadPath.url === url)) return g.__chefReadPath;
  if (!url.startsWith('file:')) return (g.__chefReadPath = null);
  const conn = new Database(databaseFile(url), { readonly: true, fileMustExist: true });
  conn.pragma('busy_timeout = 10000');
  g.__chefReadPath = {
    url,
    keys: conn.prepare(`
      SELECT k."id" AS "keyId", k."name" AS "keyName", k."publicKey" AS "publicKey", k."expiresAt" AS "expiresAt", k."lastUsedAt" AS "lastUsedAt",
             k."userId" AS "userId", k."clientId" AS "clientId", c."name" AS "clientName", c."validator" AS "validator",
             u."isAdmin" AS "isAdmin"
        FROM "ChefKey" k
        LEFT JOIN "User" u ON u."id" = k."userId"
        LEFT JOIN "ChefClient" c ON c."id" = k."clientId"
       WHERE (u."chefName" = ? AND u."active" = 1) OR c."name" = ?`),
    read: conn.prepare(`
      SELECT (SELECT MAX(CASE gp."level" WHEN 'manage' THEN 3 WHEN 'promote' THEN 2 WHEN 'view' THEN 1 ELSE 0 END)
                FROM "GroupPermission" gp JOIN "PolicyGroup" g2 ON g2."id" = gp."groupId"
               WHERE g2."name" = @group
                 AND (gp."userId" = @user OR gp."teamId" IN (SELECT tm."teamId" FROM "TeamMember" tm WHERE tm."userId" = @user))) AS "level",
             (SELECT r."document" FROM "GroupPolicy" x
                JOIN "PolicyGroup" g ON g."id" = x."groupId"
                JOIN "Policy" p ON p."id" = x."policyId"
                JOIN "PolicyRevision" r ON r."id" = x."revisionPk"
               WHERE g."name" = @group AND p."name" = @policy) AS "document"`),
  };
  return g.__chefReadPath;
}

export interface FastKey extends ChefKeyCandidate {
  isAdmin: boolean;
}

/** The keys of the user or client named `name`; null when this database has no fast path. */
export function fastChefKeys(name: string): FastKey[] | null {
  const h = handle();
  if (!h) return null;
  const rows = h.keys.all([name, name]) as (Omit<FastKey, 'expiresAt' | 'lastUsedAt' | 'validator' | 'isAdmin'> & { expiresAt: number | string | null; lastUsedAt: number | string | null; validator: number | null; isAdmin: number | null })[];
  const date = (v: number | string | null) => (v === null ? null : new Date(v));
  return rows.map((r) => ({ ...r, expiresAt: date(r.expiresAt), lastUsedAt: date(r.lastUsedAt), validator: !!r.validator, isAdmin: !!r.isAdmin }));
}

/** The user's level on the stage (0 none … 3 manage) and the document the stage runs for the policy (null: none). */
export function fastPolicyRead(userId: string | null, group: string, policy: string): { level: number; document: string | null } | null {
  const h = handle();
  if (!h) return null;
  const row = h.read.get({ user: userId ?? '', group, policy }) as { level: number | null; document: string | null };
  return { level: row.level ?? 0, document: row.document };
}
