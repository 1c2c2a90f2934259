/**
 * Issue 47: a promotion gate's outside checks — run (bounded, through the webhook rules on private targets),
 * recorded (CheckEvaluation: result, value, duration) and read back by the gate. The fetch never happens
 * inside a database transaction: the rollout worker and the gate's answer (the promote dialog, GET …/gate,
 * a person's promotion) refresh the checks first; the guard (movePointer) then reads the latest evaluation of
 * each check for the revision, and one older than CHECK_MAX_AGE_SECONDS (default 300) counts as not evaluated
 * (inconclusive).
 */
import { db, type Tx } from '@/lib/db/client';
import { checkTimeoutMs, checkUnmetWords, readHttpStatus, readPrometheusAnswer, type CheckResult, type GateCheck } from '@/lib/domain/rollout';
import { emitEvent } from './outbox';
import { guardedGet } from './net-guard';

/** How long a check's evaluation stands for the guard (CHECK_MAX_AGE_SECONDS, default 300). */
export function checkMaxAgeMs(): number {
  const n = Number(process.env.CHECK_MAX_AGE_SECONDS);
  return (Number.isFinite(n) && n > 0 ? n : 300) * 1000;
}

/** The stage's outside checks (as stored; [] when none, or when its gate is off). */
export async function gateChecksOf(tx: Tx, groupName: string): Promise<GateCheck[]> {
  const r = await tx.stageRolloutRule.findUnique({ where: { groupName }, select: { gateChecks: true, gateEnabled: true } });
  return r?.gateEnabled ? (JSON.parse(r.gateChecks) as GateCheck[]) : [];
}

/** Runs one check now, bounded by its timeout. */
export async function runCheck(c: GateCheck): Promise<Omit<CheckResult, 'at'>> {
  const started = Date.now();
  const timeoutMs = checkTimeoutMs(c);
  const base = { name: c.name, kind: c.kind };
  let target = c.url;
  if (c.kind === 'prometheus') {
    const u = new URL(c.url);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/api/v1/query`;
    u.searchParams.set('query', c.query);
    target = u.toString();
  }
  const r = await guardedGet(target, { timeoutMs, allowPrivate: !!c.allow_private_targets });
  const duration_ms = Date.now() - started;
  if (r.status === null) return { ...base, result: r.timedOut ? 'inconclusive' : r.error?.startsWith('refused') ? 'fail' : 'inconclusive', value: null, detail: r.error ?? 'no answer', duration_ms };
  if (c.kind === 'http') return { ...base, ...readHttpStatus(c, r.status), value: r.status, duration_ms };
  if (r.status >= 500) return { ...base, result: 'inconclusive', value: null, detail: `HTTP ${r.status} from Prometheus`, duration_ms };
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    return { ...base, result: 'inconclusive', value: null, detail: `HTTP ${r.status}: the answer is not JSON`, duration_ms };
  }
  return { ...base, ...readPrometheusAnswer(c, body), duration_ms };
}

/**
 * Runs the stage's checks for a revision (in parallel, each bounded) and records each evaluation; a check that
 * stops passing (it passed before, or was never evaluated for this revision) is announced as `check.failed`.
 * Returns the results ([] when the stage has no checks).
 */
export async function refreshChecks(stage: string, policy: string, revisionId: string, now = new Date()): Promise<CheckResult[]> {
  const checks = await gateChecksOf(db(), stage);
  if (!checks.length) return [];
  const results = await Promise.all(checks.map((c) => runCheck(c)));
  const at = now.toISOString();
  await db().$transaction(async (tx) => {
    for (const r of results) {
      const prev = await tx.checkEvaluation.findFirst({ where: { groupName: stage, policyName: policy, revisionId, checkName: r.name }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { result: true } });
      await tx.checkEvaluation.create({ data: { groupName: stage, policyName: policy, revisionId, checkName: r.name, kind: r.kind, result: r.result, value: r.value, detail: r.detail.slice(0, 500), durationMs: r.duration_ms, createdAt: now } });
      if (r.result !== 'pass' && (!prev || prev.result === 'pass')) {
        const summary = `${policy} ${revisionId.slice(0, 10)} into ${stage}: ${checkUnmetWords({ ...r, at })}`;
        await emitEvent(tx, 'check.failed', summary, { stage, policy, revision_id: revisionId, check: { ...r, at } }, { at: now, message: { title: `Check ${r.result === 'fail' ? 'failed' : 'inconclusive'}: ${r.name} (${stage})`, facts: [['Stage', stage], ['Policy', policy], ['Revision', revisionId.slice(0, 10)], ['Check', r.name], ['Result', `${r.result}: ${r.detail}`]] } });
      }
    }
  });
  return results.map((r) => ({ ...r, at }));
}

/** The latest evaluation of each check for the revision; one older than the maximum age is "not evaluated lately" (inconclusive). */
export async function latestCheckResults(tx: Tx, stage: string, policy: string, revisionId: string, checks: GateCheck[], now: Date): Promise<CheckResult[]> {
  if (!checks.length) return [];
  const since = new Date(now.getTime() - checkMaxAgeMs());
  const rows = await Promise.all(
    checks.map((c) => tx.checkEvaluation.findFirst({ where: { groupName: stage, policyName: policy, revisionId, checkName: c.name, createdAt: { gte: since } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] })),
  );
  return checks.map((c, i) => {
    const r = rows[i];
    if (!r) return { name: c.name, kind: c.kind, result: 'inconclusive', value: null, detail: `not evaluated in the last ${Math.round(checkMaxAgeMs() / 60_000)} minute(s)`, duration_ms: 0, at: null };
    return { name: c.name, kind: c.kind, result: r.result as CheckResult['result'], value: r.value, detail: r.detail, duration_ms: r.durationMs, at: r.createdAt.toISOString() };
  });
}
