/**
 * Two instances on one PostgreSQL database: two processes (test/fixtures/race-worker.ts),
 * each with its own client and connection pool, fire 25 requests each at the same moment
 * through the services the routes call. PostgreSQL only: SQLite means one instance.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { databaseProvider } from '@/lib/db/url';
import { accessFor, pollUntil, seed } from '@/test/helpers';
import { promotePolicy } from '@/lib/services/promotion';
import { setStageProtection } from '@/lib/services/guards';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PER_INSTANCE = 25;
const onPostgres = databaseProvider() === 'postgresql';
if (!onPostgres) console.log('multi-instance race tests: skipped on SQLite (one instance only); they run in the PostgreSQL integration run');

interface Outcome {
  status: number;
  message?: string;
}

/** Starts two worker processes for `scenario`, waits until both are ready, starts them together, returns all 50 outcomes. */
async function race(scenario: string, argsFor: (instance: number) => unknown): Promise<Outcome[]> {
  const children: ChildProcess[] = [];
  const exits: Promise<unknown>[] = [];
  try {
    const ready: Promise<void>[] = [];
    const done: Promise<Outcome[]>[] = [];
    for (let i = 0; i < 2; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/race-worker.ts', scenario, String(PER_INSTANCE), JSON.stringify(argsFor(i))], {
        cwd: ROOT,
        // PGAPPNAME names the workers' sessions, so deadlocks() can wait until they are gone. A pool as large as the
        // burst: every request holds its own connection, so on a loaded machine none waits past the pool's limit for
        // one (a 503 "no free connection", a capacity answer, not the race under test).
        env: { ...process.env, LOG_LEVEL: 'warn', PGAPPNAME: 'race-worker', DATABASE_POOL_SIZE: String(PER_INSTANCE + 2) },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const lines = readline.createInterface({ input: child.stdout! });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      exits.push(exited);
      ready.push(
        new Promise((resolve, reject) => {
          lines.on('line', (l) => l.includes('"ready"') && resolve());
          exited.then((code) => reject(new Error(`worker exited ${code} before it was ready: ${stderr}`)));
        }),
      );
      done.push(
        new Promise((resolve, reject) => {
          lines.on('line', (l) => {
            if (l.startsWith('{"results"')) resolve(JSON.parse(l).results);
          });
          exited.then((code) => reject(new Error(`worker exited ${code} without results: ${stderr}`)));
        }),
      );
    }
    await Promise.all(ready);
    for (const c of children) c.stdin!.write('go\n');
    const outcomes = (await Promise.all(done)).flat();
    // Each worker disconnects and exits after its results line: wait for that, so its sessions end before the next step.
    await Promise.all(exits);
    return outcomes;
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}

const tally = (outcomes: Outcome[]) => outcomes.reduce<Record<number, number>>((acc, o) => ((acc[o.status] = (acc[o.status] ?? 0) + 1), acc), {});

/**
 * Deadlocks PostgreSQL detected in this database so far. A session's statistics reach the shared counters at the
 * latest when it ends, so first wait until the workers' sessions (application_name race-worker) are gone.
 */
async function deadlocks(): Promise<number> {
  await pollUntil(
    "the race workers' sessions to end",
    async () => {
      await db().$executeRaw`SELECT pg_stat_clear_snapshot()`;
      const [{ n }] = await db().$queryRaw<{ n: bigint | number }[]>`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE "datname" = current_database() AND "application_name" = 'race-worker'`;
      return Number(n) === 0;
    },
    { everyMs: 50 },
  );
  await db().$executeRaw`SELECT pg_stat_clear_snapshot()`;
  const [row] = await db().$queryRaw<{ deadlocks: bigint | number }[]>`SELECT "deadlocks" FROM pg_stat_database WHERE "datname" = current_database()`;
  return Number(row.deadlocks);
}

/** What each policy runs in a stage, by policy name. */
async function stageRows(stage: string): Promise<Map<string, string>> {
  const found = await db().groupPolicy.findMany({ where: { group: { name: stage } }, select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } });
  return new Map(found.map((r) => [r.policy.name, r.revision.revisionId]));
}

async function active(stage: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}

// Each test starts two Node processes (tsx compiling the services) and runs 50 transactions: genuinely long on a loaded machine.
describe.runIf(onPostgres)('two instances on one PostgreSQL database, 25 simultaneous requests each', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    await seed();
    // Pointer races, not approvals: the demo's protected stages (issue 15) would turn each promotion into a request.
    // Concurrent approvals of one request are raced in guarded-stages.integration.test.ts (both databases).
    await db().stageProtection.deleteMany();
  });
  afterAll(async () => {
    await db().$disconnect();
  });

  it('single promotion: exactly one wins, 49 get 409, one history row and one audit event', async () => {
    const expected = await active('production', 'mysql-primary');
    const outcomes = await race('promote', () => ({
      as: 'release@example.com',
      input: { policy: 'mysql-primary', from: 'staging', to: 'production', expectedRevisionId: expected, reason: 'race-single' },
    }));
    expect(tally(outcomes)).toEqual({ 200: 1, 409: 49 });
    expect(outcomes.filter((o) => o.status === 409).every((o) => /changed since you looked|changed while/.test(o.message ?? ''))).toBe(true);
    expect(await db().pointerHistory.count({ where: { reason: 'race-single' } })).toBe(1);
    expect(await db().auditEvent.count({ where: { action: 'pointer.promote', reason: 'race-single' } })).toBe(1);
    expect(await active('production', 'mysql-primary')).toBe(await active('staging', 'mysql-primary'));
  });

  it('bulk promotions of the same policies in opposite orders: no 500, all or nothing, a consistent end state', async () => {
    const rows = async (stage: string) =>
      new Map((await db().groupPolicy.findMany({ where: { group: { name: stage } }, select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } })).map((r) => [r.policy.name, r.revision.revisionId]));
    const [dev, production] = [await rows('dev'), await rows('production')];
    // Every policy dev runs; pointers that already match simply do not move.
    const names = [...dev.keys()].sort();
    const moved = names.filter((n) => production.get(n) !== dev.get(n)).length;
    expect(moved).toBeGreaterThan(2);
    const expected = Object.fromEntries(names.map((n) => [n, production.get(n) ?? null]));
    const deadlocksBefore = await deadlocks();
    const outcomes = await race('bulk', (instance) => ({
      as: 'admin@example.com',
      input: { from: 'dev', to: 'production', policies: instance === 0 ? names : [...names].reverse(), expected, reason: 'race-bulk', overrideReason: 'race test: artifacts not uploaded' },
    }));
    expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
    expect(tally(outcomes)).toEqual({ 200: 1, 409: 49 });
    // Every loser saw the winner's change (not a deadlock turned into a retry message) ...
    expect(outcomes.filter((o) => o.status === 409).every((o) => /changed since you looked|changed while/.test(o.message ?? ''))).toBe(true);
    // ... and PostgreSQL detected no deadlock at all: the pointers move in one order whatever the request's.
    expect(await deadlocks()).toBe(deadlocksBefore);
    const after = await rows('production');
    for (const n of names) expect(after.get(n)).toBe(dev.get(n));
    expect(await db().pointerHistory.count({ where: { reason: 'race-bulk' } })).toBe(moved);
    expect(await db().auditEvent.count({ where: { action: 'pointer.promote', reason: 'race-bulk' } })).toBe(moved);
  });

  it('concurrent identical grants leave one row and one audit event', async () => {
    await db().team.create({ data: { name: 'race-team' } });
    const outcomes = await race('grant', () => ({ as: 'admin@example.com', input: { stage: 'qa', subject: { type: 'team', name: 'race-team' }, level: 'promote' } }));
    expect(tally(outcomes)).toEqual({ 200: 50 });
    const team = await db().team.findUniqueOrThrow({ where: { name: 'race-team' } });
    expect(await db().groupPermission.count({ where: { teamId: team.id } })).toBe(1);
    expect(await db().auditEvent.count({ where: { action: 'permission.set', target: 'qa/team race-team' } })).toBe(1);
  });

  it('concurrent identical uploads of a new policy: stored once, every answer 2xx or a clear 409', async () => {
    const text = fs.readFileSync(path.join(ROOT, 'test/fixtures/locks/rfc-minimal.lock.json'), 'utf8');
    const name = JSON.parse(text).name as string;
    expect(await db().policy.count({ where: { name } })).toBe(0);
    const outcomes = await race('upload', () => ({ as: 'admin@example.com', input: { policyName: name, text, requestId: 'race-upload' } }));
    // The losers of the race on the policy's and the revision's unique keys run again and find what the winner stored.
    expect(tally(outcomes)).toEqual({ 201: 1, 200: 49 });
    expect(await db().policy.count({ where: { name } })).toBe(1);
    expect(await db().policyRevision.count({ where: { policy: { name } } })).toBe(1);
    expect(await db().auditEvent.count({ where: { action: 'policy.create', target: name } })).toBe(1);
    expect(await db().auditEvent.count({ where: { action: 'revision.upload', policyName: name } })).toBe(1);
  });

  it('concurrent approvals of one request from two instances apply it exactly once', async () => {
    // 50 approvers (a team), a stage needing 2 approvals, one request: every approval races the apply.
    const team = await db().team.create({ data: { name: 'race-approvers' } });
    const qa = await db().policyGroup.findUniqueOrThrow({ where: { name: 'qa' } });
    const emails: string[] = [];
    for (let i = 0; i < 2 * PER_INSTANCE; i++) {
      const u = await db().user.create({ data: { email: `race-approver-${i}@example.com`, name: `Approver ${i}`, passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
      await db().teamMember.create({ data: { teamId: team.id, userId: u.id } });
      await db().groupPermission.create({ data: { groupId: qa.id, userId: u.id, level: 'view' } });
      emails.push(u.email);
    }
    const admin = await accessFor('admin@example.com');
    await setStageProtection(admin, { stage: 'qa', approvalsRequired: 2, rules: [], approvers: ['team:race-approvers'] });
    const [dev, qaRows] = [await stageRows('dev'), await stageRows('qa')];
    const policy = [...dev.keys()].sort().find((n) => dev.get(n) !== qaRows.get(n))!;
    expect(policy).toBeDefined();
    const { request } = await promotePolicy(admin, { policy, from: 'dev', to: 'qa', expectedRevisionId: qaRows.get(policy) ?? null, reason: 'race-approve' });
    expect(request?.status).toBe('pending');
    const historyBefore = await db().pointerHistory.count({ where: { groupName: 'qa', policyName: policy } });
    const outcomes = await race('approve', (i) => ({ id: request!.id, emails: emails.slice(i * PER_INSTANCE, (i + 1) * PER_INSTANCE) }));
    expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
    // At least the two that reached the threshold were accepted; every other answer is a clear 409 (already decided).
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThanOrEqual(2);
    expect(outcomes.every((o) => o.status === 200 || o.status === 409)).toBe(true);
    const final = await db().promotionRequest.findUniqueOrThrow({ where: { id: request!.id }, select: { status: true } });
    expect(final.status).toBe('applied');
    expect(await db().promotionApproval.count({ where: { requestId: request!.id } })).toBe(2);
    expect(await db().pointerHistory.count({ where: { groupName: 'qa', policyName: policy } })).toBe(historyBefore + 1);
    expect((await stageRows('qa')).get(policy)).toBe(dev.get(policy));
  });
});
