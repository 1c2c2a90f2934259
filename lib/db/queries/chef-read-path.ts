/**
 * The reads every Chef request makes, as prepared statements on both
 * databases, without Prisma: the keys of the actor a signature names, a
 * user's access (flag, teams, stage grants), the document a stage runs for a
 * policy, and a node. Every chef-client run is made of these (see
 * bench/chef-read.bench.ts and bench/postgres.bench.ts), so they are the
 * console's hottest path. One query per read and database kind:
 *
 * - SQLite: a read-only better-sqlite3 connection of its own (write-ahead
 *   log: it reads the last committed state and never waits for a writer;
 *   Prisma's connection may be inside another request's transaction), with
 *   the statements prepared once.
 * - PostgreSQL: the process-wide client's pg pool, with named prepared
 *   statements (parsed and planned once per connection).
 *
 * Timestamps are read as epoch milliseconds on PostgreSQL (pg would read a
 * `timestamp without time zone` in the process's local time zone) and as
 * the ISO text Prisma stores on SQLite.
 *
 * Memos, so an unchanged database is not asked the same question again:
 * - a revision's document by its row id, on both databases (revisions are
 *   immutable: a promotion or an edit makes a new row);
 * - on SQLite, the answers of the key and pointer reads while the database
 *   has not changed: `PRAGMA data_version` on the read-only connection
 *   changes with every commit by any other connection (Prisma's, another
 *   process's), and the memo is dropped then. A key revoked, a grant changed
 *   or a pointer moved is seen by the next request, as without the memo.
 */
import Database from 'better-sqlite3';
import type pg from 'pg';
import { db, onDisconnect, pgPoolOf } from '../client';
import { processBox } from '@/lib/process-state';
import { databaseFile, databaseUrl, isPostgresUrl } from '../url';
import { RING_BUCKETS, ringBucket, ringSeed } from '@/lib/domain/rings';
import { HOME_ORG_ID } from '@/lib/domain/organizations';

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
  /** For a user's key: the user's flags, teams and grants, read in the same query. */
  user: UserAccessRow | null;
  /** For a client's key: what the client's rights depend on, read in the same query. */
  client: { stage: string | null; stageIsolation: boolean; enrollStage: string | null } | null;
}

export interface UserAccessRow {
  id: string;
  email: string;
  name: string;
  isAdmin: boolean;
  active: boolean;
  sessionVersion: number;
  /** The user's Chef name (X-Ops-Userid), null when the user has none. */
  chefName: string | null;
  /** Issue 23: a member of the organization the read was made for (OrgMember; the home organization for the console and /api/v1). */
  member: boolean;
  teamIds: string[];
  /** [stage name, level] of every grant to the user or one of their teams. */
  grants: [string, string][];
}

export interface NodeRow {
  id: string;
  name: string;
  groupId: string | null;
  policyId: string | null;
  chefDocument: string | null;
  reportedGroup: string | null;
  reportedPolicy: string | null;
  revisionApplied: string | null;
  platform: string | null;
  platformVersion: string | null;
  platformFamily: string | null;
  os: string | null;
  group: { name: string } | null;
  policy: { name: string } | null;
}

type Sql = { sqlite: string; pg: string };

/**
 * Issue 23: the user `u`'s membership of the organization @p2 (a primary-key probe of OrgMember) and their
 * Chef name, read with their access.
 */
const SQLITE_USER_ORG = `
           u."chefName" AS "chefName", EXISTS (SELECT 1 FROM "OrgMember" m WHERE m."orgId" = @p2 AND m."userId" = u."id") AS "member",`;
const PG_USER_ORG = `
           u."chefName" AS "chefName", EXISTS (SELECT 1 FROM "OrgMember" m WHERE m."orgId" = $2::text AND m."userId" = u."id") AS "member",`;

/** A user's teams and grants, as JSON text (SQLite), for the user row `u`. */
const SQLITE_USER_GRANTS = `
           (SELECT json_group_array(tm."teamId") FROM "TeamMember" tm WHERE tm."userId" = u."id") AS "teamIds",
           (SELECT json_group_array(json_array(g."name", gp."level")) FROM "GroupPermission" gp JOIN "PolicyGroup" g ON g."id" = gp."groupId"
             WHERE gp."userId" = u."id" OR gp."teamId" IN (SELECT tm."teamId" FROM "TeamMember" tm WHERE tm."userId" = u."id")) AS "grants"`;
const PG_USER_GRANTS = `
           (SELECT COALESCE(json_agg(tm."teamId"), '[]')::text FROM "TeamMember" tm WHERE tm."userId" = u."id") AS "teamIds",
           (SELECT COALESCE(json_agg(json_build_array(g."name", gp."level")), '[]')::text FROM "GroupPermission" gp JOIN "PolicyGroup" g ON g."id" = gp."groupId"
             WHERE gp."userId" = u."id" OR gp."teamId" IN (SELECT tm."teamId" FROM "TeamMember" tm WHERE tm."userId" = u."id")) AS "grants"`;

/**
 * What a client's rights depend on (issue 23, lib/auth/permissions.ts): its
 * stage, the known stage of the node named like it (issue 41: the stage the
 * console has that node in; only the home organization's clients have nodes),
 * where it may enroll its node, and the organization's "stage isolation"
 * setting. Portable SQL, for the client row `c`.
 */
const CLIENT_CONTEXT = `
           (SELECT g."name" FROM "Node" n JOIN "PolicyGroup" g ON g."id" = n."groupId" WHERE n."name" = c."name" AND c."orgId" = '${HOME_ORG_ID}') AS "clientStage",
           (SELECT s."stageIsolation" FROM "OrgSetting" s WHERE s."id" = 'org') AS "stageIsolation", c."enrollStage" AS "enrollStage"`;

/**
 * The keys of the active user or the client named @p1, each lookup through
 * its unique index (two branches, not an OR over joins, which scans every
 * key); a user's rows carry what their access is made of, so a signed request
 * by a user costs one query for both. @p2 is the organization the request is
 * for (issue 23): a client is found only in its own organization, a user's
 * rows say whether they are a member of it.
 */
const KEYS: Sql = {
  sqlite: `
    SELECT k."id" AS "keyId", k."name" AS "keyName", k."publicKey" AS "publicKey", k."expiresAt" AS "expiresAt", k."lastUsedAt" AS "lastUsedAt",
           u."id" AS "userId", NULL AS "clientId", NULL AS "clientName", 0 AS "validator",
           u."email" AS "email", u."name" AS "name", u."isAdmin" AS "isAdmin", u."active" AS "active", u."sessionVersion" AS "sessionVersion",${SQLITE_USER_ORG}${SQLITE_USER_GRANTS},
           NULL AS "clientStage", NULL AS "stageIsolation", NULL AS "enrollStage"
      FROM "User" u JOIN "ChefKey" k ON k."userId" = u."id"
     WHERE u."chefName" = @p1 AND u."active" = 1
    UNION ALL
    SELECT k."id", k."name", k."publicKey", k."expiresAt", k."lastUsedAt",
           NULL, c."id", c."name", c."validator",
           NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,${CLIENT_CONTEXT}
      FROM "ChefClient" c JOIN "ChefKey" k ON k."clientId" = c."id"
     WHERE c."name" = @p1 AND c."orgId" = @p2`,
  pg: `
    SELECT k."id" AS "keyId", k."name" AS "keyName", k."publicKey" AS "publicKey",
           (EXTRACT(EPOCH FROM k."expiresAt") * 1000)::float8 AS "expiresAt", (EXTRACT(EPOCH FROM k."lastUsedAt") * 1000)::float8 AS "lastUsedAt",
           u."id" AS "userId", NULL::text AS "clientId", NULL::text AS "clientName", false AS "validator",
           u."email" AS "email", u."name" AS "name", u."isAdmin" AS "isAdmin", u."active" AS "active", u."sessionVersion" AS "sessionVersion",${PG_USER_ORG}${PG_USER_GRANTS},
           NULL::text AS "clientStage", NULL::boolean AS "stageIsolation", NULL::text AS "enrollStage"
      FROM "User" u JOIN "ChefKey" k ON k."userId" = u."id"
     WHERE u."chefName" = $1 AND u."active" = true
    UNION ALL
    SELECT k."id", k."name", k."publicKey",
           (EXTRACT(EPOCH FROM k."expiresAt") * 1000)::float8, (EXTRACT(EPOCH FROM k."lastUsedAt") * 1000)::float8,
           NULL, c."id", c."name", c."validator",
           NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,${CLIENT_CONTEXT}
      FROM "ChefClient" c JOIN "ChefKey" k ON k."clientId" = c."id"
     WHERE c."name" = $1 AND c."orgId" = $2::text`,
};

/** A live-looking API token (not revoked) and its user's access, by the token's hash: one query for a bearer request. */
const TOKEN: Sql = {
  sqlite: `
    SELECT t."id" AS "tokenId", t."lastUsedAt" AS "lastUsedAt", t."expiresAt" AS "expiresAt",
           u."id" AS "id", u."email" AS "email", u."name" AS "name", u."isAdmin" AS "isAdmin", u."active" AS "active", u."sessionVersion" AS "sessionVersion",${SQLITE_USER_ORG}${SQLITE_USER_GRANTS}
      FROM "ApiToken" t JOIN "User" u ON u."id" = t."userId"
     WHERE t."secretHash" = @p1 AND t."revokedAt" IS NULL`,
  pg: `
    SELECT t."id" AS "tokenId", (EXTRACT(EPOCH FROM t."lastUsedAt") * 1000)::float8 AS "lastUsedAt", (EXTRACT(EPOCH FROM t."expiresAt") * 1000)::float8 AS "expiresAt",
           u."id" AS "id", u."email" AS "email", u."name" AS "name", u."isAdmin" AS "isAdmin", u."active" AS "active", u."sessionVersion" AS "sessionVersion",${PG_USER_ORG}${PG_USER_GRANTS}
      FROM "ApiToken" t JOIN "User" u ON u."id" = t."userId"
     WHERE t."secretHash" = $1 AND t."revokedAt" IS NULL`,
};

const ACCESS: Sql = {
  sqlite: `
    SELECT u."id" AS "id", u."email" AS "email", u."name" AS "name", u."isAdmin" AS "isAdmin", u."active" AS "active", u."sessionVersion" AS "sessionVersion",${SQLITE_USER_ORG}${SQLITE_USER_GRANTS}
      FROM "User" u WHERE u."id" = @p1`,
  pg: `
    SELECT u."id" AS "id", u."email" AS "email", u."name" AS "name", u."isAdmin" AS "isAdmin", u."active" AS "active", u."sessionVersion" AS "sessionVersion",${PG_USER_ORG}${PG_USER_GRANTS}
      FROM "User" u WHERE u."id" = $1`,
};

/**
 * Which revision a node gets for a stage's policy (the pointer). Issue 30: the
 * same query answers a node its ring's revision — the stage's open ringed
 * rollout (found by its unique open key, and only while the stage still runs
 * the revision the ring started from) serves its revision when the node's
 * bucket (@p3, computed by lib/domain/rings before the query) is below the
 * step's percent × 100, or the rollout names the node (@p4, by its primary
 * key). No ring: the left join finds nothing and the stage's revision is read.
 */
const POLICY_POINTER: Sql = {
  sqlite: `
    SELECT CASE WHEN ro."id" IS NOT NULL AND (@p3 < ro."percent" * 100 OR EXISTS (SELECT 1 FROM "RingNode" rn WHERE rn."rolloutId" = ro."id" AND rn."nodeName" = @p4))
                THEN ro."toRevisionPk" ELSE x."revisionPk" END AS "revisionPk" FROM "GroupPolicy" x
      JOIN "PolicyGroup" g ON g."id" = x."groupId"
      JOIN "Policy" p ON p."id" = x."policyId"
      LEFT JOIN "RingRollout" ro ON ro."openKey" = x."groupId" || ':' || x."policyId" AND ro."fromRevisionPk" = x."revisionPk" AND ro."status" IN ('active', 'paused')
     WHERE g."name" = @p1 AND p."name" = @p2`,
  pg: `
    SELECT CASE WHEN ro."id" IS NOT NULL AND ($3::int < ro."percent" * 100 OR EXISTS (SELECT 1 FROM "RingNode" rn WHERE rn."rolloutId" = ro."id" AND rn."nodeName" = $4::text))
                THEN ro."toRevisionPk" ELSE x."revisionPk" END AS "revisionPk" FROM "GroupPolicy" x
      JOIN "PolicyGroup" g ON g."id" = x."groupId"
      JOIN "Policy" p ON p."id" = x."policyId"
      LEFT JOIN "RingRollout" ro ON ro."openKey" = x."groupId" || ':' || x."policyId" AND ro."fromRevisionPk" = x."revisionPk" AND ro."status" IN ('active', 'paused')
     WHERE g."name" = $1 AND p."name" = $2`,
};

/** A revision's document bytes: a BLOB from SQLite is handed over as is (no UTF-8 decoding and encoding again). */
const REVISION_DOCUMENT: Sql = {
  sqlite: `SELECT CAST(r."document" AS BLOB) AS "document" FROM "PolicyRevision" r WHERE r."id" = @p1`,
  pg: `SELECT r."document" AS "document" FROM "PolicyRevision" r WHERE r."id" = $1`,
};

const NODE_COLUMNS = `n."id" AS "id", n."name" AS "name", n."groupId" AS "groupId", n."policyId" AS "policyId", n."chefDocument" AS "chefDocument", n."reportedGroup" AS "reportedGroup", n."reportedPolicy" AS "reportedPolicy",
           n."revisionApplied" AS "revisionApplied", n."platform" AS "platform", n."platformVersion" AS "platformVersion", n."platformFamily" AS "platformFamily", n."os" AS "os",
           g."name" AS "groupName", p."name" AS "policyName"
      FROM "Node" n LEFT JOIN "PolicyGroup" g ON g."id" = n."groupId" LEFT JOIN "Policy" p ON p."id" = n."policyId"`;
const NODE: Sql = {
  sqlite: `SELECT ${NODE_COLUMNS} WHERE n."name" = @p1`,
  pg: `SELECT ${NODE_COLUMNS} WHERE n."name" = $1`,
};

type Row = Record<string, unknown>;

interface Reader {
  /** Every row of a statement. */
  all(name: string, sql: Sql, values: unknown[]): Promise<Row[]>;
  /**
   * Answers of `load` remembered under `key` while the database is unchanged (SQLite's data_version);
   * on PostgreSQL (no such counter for other sessions' commits) `load` runs every time.
   */
  memo<T>(key: string, load: () => Promise<T>): Promise<T>;
  close(): void;
}

/** At most this many remembered answers (then all are dropped: a new version drops them anyway). */
const MEMO_ENTRIES = 10_000;

/** SQLite: one read-only connection per database file, its statements prepared on first use. */
function sqliteReader(url: string): Reader {
  let conn: Database.Database | null = null;
  let dataVersion: Database.Statement | null = null;
  const statements = new Map<string, Database.Statement>();
  const memo = { version: -1, entries: new Map<string, unknown>() };
  const connection = () => {
    if (!conn) {
      conn = new Database(databaseFile(url), { readonly: true, fileMustExist: true });
      conn.pragma('busy_timeout = 10000');
      dataVersion = conn.prepare('PRAGMA data_version').pluck();
    }
    return conn;
  };
  return {
    async all(name, sql, values) {
      let stmt = statements.get(name);
      if (!stmt) {
        stmt = connection().prepare(sql.sqlite);
        statements.set(name, stmt);
      }
      const params: Record<string, unknown> = {};
      for (let i = 0; i < values.length; i++) params[`p${i + 1}`] = values[i];
      return stmt.all(params) as Row[];
    },
    async memo<T>(key: string, load: () => Promise<T>): Promise<T> {
      connection();
      // Read before the load: a commit between the two makes the next call load again (never an old answer kept).
      const version = dataVersion!.get() as number;
      if (version !== memo.version || memo.entries.size >= MEMO_ENTRIES) {
        memo.version = version;
        memo.entries.clear();
      }
      if (memo.entries.has(key)) return memo.entries.get(key) as T;
      const value = await load();
      if (memo.version === version) memo.entries.set(key, value);
      return value;
    },
    close() {
      conn?.close();
      conn = null;
      dataVersion = null;
      statements.clear();
      memo.entries.clear();
      memo.version = -1;
    },
  };
}

/** PostgreSQL: named prepared statements on the process-wide client's pool. */
function pgReader(): Reader {
  return {
    async all(name, sql, values) {
      const pool = pgPoolOf(db()) as pg.Pool;
      return (await pool.query({ name: `chef-read-path:${name}`, text: sql.pg, values })).rows as Row[];
    },
    memo: (_key, load) => load(),
    close() {
      /* the pool belongs to the client */
    },
  };
}

/** Immutable documents by revision row id, both databases; dropped whole past MAX_DOCUMENT_BYTES. */
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** The reader, its memo and the documents: one per process (lib/process-state.ts), so a memo dropped by one copy of this module is dropped for all. */
const shared = processBox<{ url: string; reader: Reader; documents: Map<string, Buffer>; documentBytes: number }>('chef-read-path.reader');

function readPath() {
  const url = databaseUrl();
  if (shared.current?.url !== url) {
    shared.current?.reader.close();
    shared.current = { url, reader: isPostgresUrl(url) ? pgReader() : sqliteReader(url), documents: new Map(), documentBytes: 0 };
  }
  return shared.current;
}

function reader(): Reader {
  return readPath().reader;
}

onDisconnect('chef-read-path', () => {
  shared.current?.reader.close();
  shared.current = undefined;
});

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string | number));

/**
 * Every key of the active user or the client named `name` (one query): what a
 * Chef-signed request may have been signed with. Users and clients share one
 * namespace (ChefName), so at most one of them matches. `orgId`: the
 * organization the request is for (a client of another organization is not
 * found; a user's access row says whether they are a member of it).
 */
export async function chefKeysFor(name: string, orgId: string = HOME_ORG_ID): Promise<readonly ChefKeyCandidate[]> {
  const r = reader();
  return r.memo(`keys\0${name}\0${orgId}`, async () => Object.freeze((await r.all('keys', KEYS, [name, orgId])).map(keyCandidate())));
}

/** Maps the KEYS rows of one name (a user's rows share one access row). */
function keyCandidate(): (r: Row) => ChefKeyCandidate {
  let user: UserAccessRow | null = null;
  return (r) => ({
    keyId: r.keyId as string,
    keyName: r.keyName as string,
    publicKey: r.publicKey as string,
    expiresAt: date(r.expiresAt),
    lastUsedAt: date(r.lastUsedAt),
    userId: (r.userId as string | null) ?? null,
    clientId: (r.clientId as string | null) ?? null,
    clientName: (r.clientName as string | null) ?? null,
    validator: !!r.validator,
    user: r.userId ? (user ??= userRow({ ...r, id: r.userId })) : null,
    client: r.clientId ? { stage: (r.clientStage as string | null) ?? null, stageIsolation: !!r.stageIsolation, enrollStage: (r.enrollStage as string | null) ?? null } : null,
  });
}

function userRow(r: Row): UserAccessRow {
  return {
    id: r.id as string,
    email: r.email as string,
    name: r.name as string,
    isAdmin: !!r.isAdmin,
    active: !!r.active,
    sessionVersion: Number(r.sessionVersion),
    chefName: (r.chefName as string | null) ?? null,
    member: !!r.member,
    teamIds: JSON.parse((r.teamIds as string | null) ?? '[]') as string[],
    grants: JSON.parse((r.grants as string | null) ?? '[]') as [string, string][],
  };
}

export interface TokenRow {
  tokenId: string;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  user: UserAccessRow;
}

/** The unrevoked API token with this secret hash and its user's access row, membership of `orgId` included (one query); null: no such token. */
export async function tokenRow(secretHash: string, orgId: string = HOME_ORG_ID): Promise<TokenRow | null> {
  const r = (await reader().all('token', TOKEN, [secretHash, orgId]))[0];
  return r ? { tokenId: r.tokenId as string, lastUsedAt: date(r.lastUsedAt), expiresAt: date(r.expiresAt), user: userRow(r) } : null;
}

/** A user's flags, membership of `orgId` (the home organization by default), teams and stage grants (one query); null when there is no such user. */
export async function userAccessRow(userId: string, orgId: string = HOME_ORG_ID): Promise<UserAccessRow | null> {
  const r = (await reader().all('access', ACCESS, [userId, orgId]))[0];
  return r ? userRow(r) : null;
}

/**
 * The revision row id a stage runs for a policy (null: the stage runs no such
 * policy). With `node` (the name of the signing client), the revision of the
 * node's ring when a ringed rollout holds it (issue 30); without, the stage's.
 */
export async function policyPointer(group: string, policy: string, node?: string | null): Promise<string | null> {
  const bucket = node ? ringBucket(ringSeed(group, policy), node) : RING_BUCKETS;
  const r = reader();
  return r.memo(`pointer\0${group}\0${policy}\0${node ?? ''}`, async () => ((await r.all('policy-pointer', POLICY_POINTER, [group, policy, bucket, node ?? '']))[0]?.revisionPk as string | undefined) ?? null);
}

/** A revision's stored document, its UTF-8 bytes as stored (null: no such revision). Revisions never change: remembered by id. */
export async function revisionDocument(revisionPk: string): Promise<Buffer | null> {
  const path = readPath();
  const known = path.documents.get(revisionPk);
  if (known) return known;
  const r = (await path.reader.all('revision-document', REVISION_DOCUMENT, [revisionPk]))[0];
  if (!r) return null;
  const bytes = typeof r.document === 'string' ? Buffer.from(r.document) : (r.document as Buffer);
  if (path.documentBytes + bytes.length > MAX_DOCUMENT_BYTES) {
    path.documents.clear();
    path.documentBytes = 0;
  }
  path.documents.set(revisionPk, bytes);
  path.documentBytes += bytes.length;
  return bytes;
}

/**
 * The stored document the stage runs for the policy, its UTF-8 bytes as
 * stored (null: the stage runs no such policy): which revision for this node
 * (policyPointer), then that revision's bytes (revisionDocument).
 */
export async function policyDocument(group: string, policy: string, node?: string | null): Promise<Buffer | null> {
  const pk = await policyPointer(group, policy, node);
  return pk === null ? null : revisionDocument(pk);
}

/** A node with the names of its stage and policy (null: no such node). */
export async function chefNodeRow(name: string): Promise<NodeRow | null> {
  const r = (await reader().all('node', NODE, [name]))[0];
  if (!r) return null;
  return {
    id: r.id as string,
    name: r.name as string,
    groupId: r.groupId as string | null,
    policyId: r.policyId as string | null,
    chefDocument: r.chefDocument as string | null,
    reportedGroup: r.reportedGroup as string | null,
    reportedPolicy: r.reportedPolicy as string | null,
    revisionApplied: r.revisionApplied as string | null,
    platform: r.platform as string | null,
    platformVersion: r.platformVersion as string | null,
    platformFamily: r.platformFamily as string | null,
    os: r.os as string | null,
    group: r.groupName === null || r.groupName === undefined ? null : { name: r.groupName as string },
    policy: r.policyName === null || r.policyName === undefined ? null : { name: r.policyName as string },
  };
}
