/**
 * Issue 26: the data collector's writes (a run's RunReport row and the
 * node's NodeRunState), as prepared statements on both databases, without
 * Prisma: every chef-client run sends two messages, so this is the console's
 * hottest write path (bench/rollout.bench.ts). Messages that arrive together
 * are written in ONE transaction (group commit, see
 * lib/services/runs/ingest.ts); each message is one or two statements:
 *
 * - run_start: INSERT … ON CONFLICT (runId) DO NOTHING;
 * - run_converge: INSERT … ON CONFLICT (runId) DO UPDATE … WHERE the stored
 *   row is still 'started' and the same node's (a retried run_converge, or
 *   another node's run_id, changes nothing), then the node's state upserted
 *   unless it already holds a later run;
 * - only when a statement changed nothing, one read says why (a retry, or
 *   another node's run: 409).
 *
 * SQLite: a write connection of its own (write-ahead log, as Prisma's), its
 * statements prepared once; the whole batch runs synchronously between
 * BEGIN IMMEDIATE and COMMIT, so no other request's statement interleaves,
 * and the write lock is asked for without blocking the event loop (busy: try
 * again shortly, up to the busy timeout; Prisma's connection may be inside an
 * interactive transaction, which needs the event loop to finish). DateTime
 * columns as the text Prisma writes.
 *
 * PostgreSQL: one pooled connection of the process-wide client's pool,
 * BEGIN … COMMIT, named prepared statements; a deadlock or serialization
 * failure runs the batch again (a bounded number of times).
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { busyTimeoutMs, db, onDisconnect, pgPoolOf, WRITE_CONFLICT_ATTEMPTS } from '../../db/client';
import { processBox, processState } from '@/lib/process-state';
import { writeAheadLog } from '../../db/sqlite-wal';
import { databaseFile, databaseUrl, isPostgresUrl } from '../../db/url';
import { isBusyError, isWriteConflictError } from '@/lib/errors';

export interface RunStartWrite {
  kind: 'start';
  runId: string;
  nodeName: string;
  clientName: string | null;
  startTime: Date;
  source: string;
  receivedAt: Date;
}

export interface RunConvergeWrite {
  kind: 'converge';
  runId: string;
  nodeName: string;
  clientName: string | null;
  groupName: string | null;
  policyName: string | null;
  revisionId: string | null;
  status: string;
  startTime: Date;
  endTime: Date;
  durationMs: number;
  totalResources: number;
  updatedResources: number;
  failedResources: number;
  errorClass: string | null;
  errorMessage: string | null;
  failedResource: string | null;
  failedCookbook: string | null;
  failedRecipe: string | null;
  resources: string;
  deprecations: string;
  chefVersion: string | null;
  source: string;
  receivedAt: Date;
}

export type RunWrite = RunStartWrite | RunConvergeWrite;

/** What became of one message: stored; already stored (a retry: nothing changed); or the run_id is another node's run (nothing changed). */
export type RunWriteOutcome = 'stored' | 'duplicate' | 'other-node';

/** RunReport's columns a run_converge writes (all but id and runId), in statement order. */
const REPORT_COLUMNS = [
  'nodeName',
  'clientName',
  'groupName',
  'policyName',
  'revisionId',
  'status',
  'startTime',
  'endTime',
  'durationMs',
  'totalResources',
  'updatedResources',
  'failedResources',
  'errorClass',
  'errorMessage',
  'failedResource',
  'failedCookbook',
  'failedRecipe',
  'resources',
  'deprecations',
  'chefVersion',
  'source',
  'receivedAt',
] as const;
const START_COLUMNS = ['nodeName', 'clientName', 'startTime', 'source', 'receivedAt'] as const;
const STATE_COLUMNS = ['groupName', 'policyName', 'revisionId', 'status', 'runId', 'endTime', 'failedResource', 'failedCookbook', 'errorClass', 'receivedAt'] as const;

const TIME = new Set(['startTime', 'endTime', 'receivedAt', 'firstSuccessAt']);
const INT = new Set(['durationMs', 'totalResources', 'updatedResources', 'failedResources']);
const q = (c: string) => `"${c}"`;

type Dialect = 'sqlite' | 'pg';

/** The placeholder of the n-th (1-based) value: `?` on SQLite, `$n` with its type on PostgreSQL. */
function ph(d: Dialect, n: number, column: string): string {
  if (d === 'sqlite') return '?';
  return `$${n}${TIME.has(column) ? '::timestamp(3)' : INT.has(column) ? '::int' : '::text'}`;
}

function statements(d: Dialect) {
  const list = (cols: readonly string[], from: number) => cols.map((c, i) => ph(d, from + i, c)).join(', ');
  const same = d === 'sqlite' ? 'IS' : 'IS NOT DISTINCT FROM';
  return {
    start: `INSERT INTO "RunReport" ("id", "runId", "status", ${START_COLUMNS.map(q).join(', ')})
            VALUES (${ph(d, 1, 'id')}, ${ph(d, 2, 'runId')}, 'started', ${list(START_COLUMNS, 3)})
            ON CONFLICT ("runId") DO NOTHING`,
    converge: `INSERT INTO "RunReport" ("id", "runId", ${REPORT_COLUMNS.map(q).join(', ')})
               VALUES (${ph(d, 1, 'id')}, ${ph(d, 2, 'runId')}, ${list(REPORT_COLUMNS, 3)})
               ON CONFLICT ("runId") DO UPDATE SET ${REPORT_COLUMNS.map((c) => `${q(c)} = excluded.${q(c)}`).join(', ')}
               WHERE "RunReport"."status" = 'started' AND "RunReport"."nodeName" = excluded."nodeName"`,
    // The node's latest finished run; firstSuccessAt carries over while the node keeps succeeding on the same revision.
    state: `INSERT INTO "NodeRunState" ("nodeName", ${STATE_COLUMNS.map(q).join(', ')}, "firstSuccessAt")
            VALUES (${ph(d, 1, 'nodeName')}, ${list(STATE_COLUMNS, 2)}, ${ph(d, STATE_COLUMNS.length + 2, 'firstSuccessAt')})
            ON CONFLICT ("nodeName") DO UPDATE SET ${STATE_COLUMNS.map((c) => `${q(c)} = excluded.${q(c)}`).join(', ')},
              "firstSuccessAt" = CASE WHEN excluded."status" <> 'success' THEN NULL
                                      WHEN "NodeRunState"."status" = 'success' AND "NodeRunState"."revisionId" ${same} excluded."revisionId" AND "NodeRunState"."firstSuccessAt" IS NOT NULL THEN "NodeRunState"."firstSuccessAt"
                                      ELSE excluded."endTime" END
            WHERE "NodeRunState"."endTime" <= excluded."endTime"`,
    owner: `SELECT "nodeName" FROM "RunReport" WHERE "runId" = ${ph(d, 1, 'runId')}`,
    precheck: precheckSql(d),
  };
}

/**
 * What the evaluation after a run (lib/services/runs/health.ts afterRunReported)
 * would look at first, in one read: the latest change that moved the stage to
 * the run's revision (none: the stage runs another revision, nothing to do),
 * which of its announcements were made, whether the stage's rollback rule is
 * on, and how many recently reporting nodes have not converged the revision.
 * Parameters: stage, policy, revision, the "missing" cutoff.
 */
function precheckSql(d: Dialect): string {
  const [g, p, r, cutoff] = d === 'sqlite' ? ['@g', '@p', '@r', '@cutoff'] : ['$1::text', '$2::text', '$3::text', '$4::timestamp(3)'];
  const announced = (event: string) => `EXISTS (SELECT 1 FROM "RolloutOutcome" o WHERE o."key" = ph."id" || ':${event}')`;
  const int = d === 'pg' ? '::int' : '';
  return `SELECT ph."id" AS "changeId", ph."fromRevisionId" AS "fromRevisionId",
            ${announced('rollout.failed')} AS "failedAnnounced",
            ${announced('rollout.converged')} AS "convergedAnnounced",
            ${announced('rollout.rolled_back')} AS "rolledBack",
            COALESCE((SELECT rr."rollbackEnabled" FROM "StageRolloutRule" rr WHERE rr."groupName" = ${g}), ${d === 'pg' ? 'false' : '0'}) AS "rollbackEnabled",
            (SELECT COUNT(*)${int} FROM "NodeRunState" s WHERE s."groupName" = ${g} AND s."policyName" = ${p} AND s."receivedAt" >= ${cutoff}
               AND (s."status" <> 'success' OR s."revisionId" IS NULL OR s."revisionId" <> ${r})) AS "notYet"
       FROM "GroupPolicy" x
       JOIN "PolicyGroup" g ON g."id" = x."groupId"
       JOIN "Policy" p ON p."id" = x."policyId"
       JOIN "PolicyRevision" r ON r."id" = x."revisionPk"
       JOIN "PointerHistory" ph ON ph."groupName" = g."name" AND ph."policyName" = p."name" AND ph."toRevisionId" = r."revisionId"
      WHERE g."name" = ${g} AND p."name" = ${p} AND r."revisionId" = ${r}
      ORDER BY ph."createdAt" DESC, ph."id" DESC
      LIMIT 1`;
}

/** The precheck's answer (null: the stage does not run the revision, or no change moved it there). */
export interface RolloutPrecheck {
  changeId: string;
  fromRevisionId: string | null;
  failedAnnounced: boolean;
  convergedAnnounced: boolean;
  rolledBack: boolean;
  rollbackEnabled: boolean;
  notYet: number;
}

function precheckRow(row: Record<string, unknown> | undefined): RolloutPrecheck | null {
  if (!row) return null;
  return {
    changeId: row.changeId as string,
    fromRevisionId: (row.fromRevisionId as string | null) ?? null,
    failedAnnounced: !!row.failedAnnounced,
    convergedAnnounced: !!row.convergedAnnounced,
    rolledBack: !!row.rolledBack,
    rollbackEnabled: !!row.rollbackEnabled,
    notYet: Number(row.notYet),
  };
}

/** cuid's counter and fingerprint: one per process, whichever copy of this module makes the id. */
const ids = processState('run-ingest.ids', () => ({ counter: 0, fingerprint: randomBytes(2).readUInt16BE(0).toString(36).padStart(4, '0').slice(-4) }));

/**
 * A new row id shaped like the cuid() Prisma gives RunReport ('c', time,
 * counter, fingerprint, random: 25 characters), so ids order by creation as
 * Prisma's do (reads that order or tie-break by id see the same order).
 */
export function runRowId(now = Date.now()): string {
  const counter = (ids.counter = (ids.counter + 1) % 1_679_616);
  const random = randomBytes(6).readUIntBE(0, 6).toString(36).padStart(8, '0').slice(-8);
  return `c${now.toString(36).padStart(8, '0')}${counter.toString(36).padStart(4, '0')}${ids.fingerprint}${random}`;
}

/** Prisma's own SQLite text form of a DateTime ('…T01:02:03.456+00:00'), so text comparisons order alike; UTC text for PostgreSQL's timestamp(3). */
function value(d: Dialect, v: unknown): unknown {
  if (v instanceof Date) return d === 'sqlite' ? v.toISOString().replace(/Z$/, '+00:00') : v.toISOString();
  return v ?? null;
}

function params(d: Dialect, w: RunWrite, kind: 'start' | 'converge' | 'state'): unknown[] {
  if (kind === 'start') return [runRowId(), w.runId, ...START_COLUMNS.map((c) => value(d, (w as RunStartWrite)[c]))];
  const c = w as RunConvergeWrite;
  if (kind === 'converge') return [runRowId(), c.runId, ...REPORT_COLUMNS.map((k) => value(d, c[k]))];
  // A first report of the node: its first success is this run's end, when it succeeded.
  return [c.nodeName, ...STATE_COLUMNS.map((k) => value(d, c[k])), value(d, c.status === 'success' ? c.endTime : null)];
}

interface Writer {
  write(batch: readonly RunWrite[]): Promise<RunWriteOutcome[]>;
  precheck(values: [string, string, string, Date]): Promise<RolloutPrecheck | null>;
  close(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SQLite: one write connection per database file; each batch is synchronous between BEGIN IMMEDIATE and COMMIT. */
function sqliteWriter(url: string): Writer {
  let conn: Database.Database | null = null;
  let st: Record<'begin' | 'commit' | 'rollback' | 'start' | 'converge' | 'state' | 'owner' | 'precheck', Database.Statement> | null = null;
  const open = () => {
    if (!conn || !st) {
      // No busy timeout of its own: waiting inside better-sqlite3 would hold the event loop (see begin below).
      conn = new Database(databaseFile(url), { fileMustExist: true, timeout: 0 });
      writeAheadLog(conn);
      const s = statements('sqlite');
      st = {
        begin: conn.prepare('BEGIN IMMEDIATE'),
        commit: conn.prepare('COMMIT'),
        rollback: conn.prepare('ROLLBACK'),
        start: conn.prepare(s.start),
        converge: conn.prepare(s.converge),
        state: conn.prepare(s.state),
        owner: conn.prepare(s.owner).pluck(),
        precheck: conn.prepare(s.precheck),
      };
    }
    return { conn, st };
  };
  return {
    async write(batch) {
      const { conn: c, st: s } = open();
      // The write lock, without blocking: another connection (Prisma's, another process) may hold it for a while.
      const deadline = Date.now() + busyTimeoutMs();
      for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
        try {
          s.begin.run();
          break;
        } catch (e) {
          if (!isBusyError(e) || Date.now() >= deadline) throw e;
          await sleep(pause);
        }
      }
      try {
        const out = batch.map((w): RunWriteOutcome => {
          const changed = w.kind === 'start' ? s.start.run(params('sqlite', w, 'start')).changes : s.converge.run(params('sqlite', w, 'converge')).changes;
          if (changed) {
            if (w.kind === 'converge') s.state.run(params('sqlite', w, 'state'));
            return 'stored';
          }
          return s.owner.get([w.runId]) === w.nodeName ? 'duplicate' : 'other-node';
        });
        s.commit.run();
        return out;
      } catch (e) {
        if (c.inTransaction) s.rollback.run();
        throw e;
      }
    },
    async precheck(values) {
      // Outside any transaction: reads the last committed state (this connection's and every other's).
      const [g, p, r, cutoff] = values;
      return precheckRow(open().st.precheck.get({ g, p, r, cutoff: value('sqlite', cutoff) }) as Record<string, unknown> | undefined);
    },
    close() {
      conn?.close();
      conn = null;
      st = null;
    },
  };
}

/** PostgreSQL: one pooled connection per batch, BEGIN … COMMIT, named prepared statements. */
function pgWriter(): Writer {
  const s = statements('pg');
  const run = async (client: pg.PoolClient, name: 'start' | 'converge' | 'state' | 'owner', values: unknown[]) => client.query({ name: `run-ingest:${name}`, text: s[name], values });
  return {
    async write(batch) {
      for (let attempt = 1; ; attempt++) {
        const client = await (pgPoolOf(db()) as pg.Pool).connect();
        try {
          await client.query('BEGIN');
          const out: RunWriteOutcome[] = [];
          for (const w of batch) {
            const r = await run(client, w.kind, params('pg', w, w.kind));
            if (r.rowCount) {
              if (w.kind === 'converge') await run(client, 'state', params('pg', w, 'state'));
              out.push('stored');
            } else {
              const owner = (await run(client, 'owner', [w.runId])).rows[0]?.nodeName as string | undefined;
              out.push(owner === w.nodeName ? 'duplicate' : 'other-node');
            }
          }
          await client.query('COMMIT');
          return out;
        } catch (e) {
          await client.query('ROLLBACK').catch(() => undefined);
          if (attempt >= WRITE_CONFLICT_ATTEMPTS || !isWriteConflictError(e)) throw e;
        } finally {
          client.release();
        }
        await sleep(5 + Math.random() * 20 * attempt);
      }
    },
    async precheck(values) {
      return precheckRow((await (pgPoolOf(db()) as pg.Pool).query({ name: 'run-ingest:precheck', text: s.precheck, values: values.map((v) => value('pg', v)) })).rows[0]);
    },
    close() {
      /* the pool belongs to the client */
    },
  };
}

/** The writer (its batch queue and connection): one per process (lib/process-state.ts). */
const shared = processBox<{ url: string; writer: Writer }>('run-ingest.writer');

function writer(): Writer {
  const url = databaseUrl();
  if (shared.current?.url !== url) {
    shared.current?.writer.close();
    shared.current = { url, writer: isPostgresUrl(url) ? pgWriter() : sqliteWriter(url) };
  }
  return shared.current.writer;
}

onDisconnect('run-ingest', () => {
  shared.current?.writer.close();
  shared.current = undefined;
});

/**
 * Writes the messages of one batch in one transaction, in order, and says
 * what became of each; resolves only once the transaction is committed. A
 * message whose run_id is another node's, or a retry, changes nothing and
 * does not fail the others.
 */
export function writeRunMessages(batch: readonly RunWrite[]): Promise<RunWriteOutcome[]> {
  return writer().write(batch);
}

/** One read of what the evaluation after a run of `revisionId` in `stage` × `policy` would find first (see precheckSql). */
export function rolloutPrecheck(stage: string, policy: string, revisionId: string, missingSince: Date): Promise<RolloutPrecheck | null> {
  return writer().precheck([stage, policy, revisionId, missingSince]);
}
