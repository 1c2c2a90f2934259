/**
 * Issue 29: a revision's journey across stages — where it was first stored (by whom, through which
 * tool), each move of a stage onto it and off it (who, when, the promotion request and its approvals,
 * freeze / gate / artifact overrides, the automatic rollback), the time it spent in each stage, and,
 * from chef-client's run reports (issue 26), how each stage's nodes converged it.
 *
 * One function for both surfaces (the revision page and GET /api/v1/policies/:name/revisions/:rev/journey).
 * Read from the append-only audit log (every pointer move writes exactly one `pointer.<kind>` event in
 * its transaction, with the request, approvers and overrides), the promotion requests and the run
 * reports (and the pending scheduled promotions of the revision): a constant number of statements whatever
 * the history's length.
 *
 * Authorization: `policy.read` for the revision; every stage is filtered through `can(stage.view)`,
 * so a reader sees neither the moves nor the runs nor the requests of a stage they may not view.
 */
import { db } from '@/lib/db/client';
import { assertCan, can, type Actor } from '@/lib/auth/permissions';
import { notFound } from '@/lib/errors';
import type { JourneyConvergence, JourneyRequest, JourneyStep, JourneyTool, RevisionJourney } from '@/lib/types/journey';
import { verdictsOf } from '@/lib/db/queries/verdicts';

export type { RevisionJourney } from '@/lib/types/journey';

const CREATE_ACTIONS = ['revision.upload', 'revision.compose', 'revision.derive'];

type Json = Record<string, unknown>;
const parse = (text: string | null): Json => {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
  } catch {
    return {};
  }
};
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The tool an audited change came through, from its `via` (and, for a Chef-key upload, whether the same request also moved a stage: that is `chef push`). */
export function journeyTool(via: string | null, actorEmail: string | null, opts: { pushed?: boolean } = {}): { tool: JourneyTool; label: string } {
  if (via?.startsWith('chef-key:')) {
    const key = via.slice('chef-key:'.length);
    return opts.pushed ? { tool: 'chef-push', label: `chef push (Chef API, key ${key})` } : { tool: 'chef-api', label: `Chef API (key ${key})` };
  }
  if (via === 'token') return { tool: 'api', label: '/api/v1 with an API token' };
  if (via === 'session') return { tool: 'console', label: 'the console' };
  if (via?.startsWith('import:')) return { tool: 'import', label: `npm run import (run ${via.slice('import:'.length)})` };
  if (via?.startsWith('promotion-request:')) return { tool: 'request', label: `promotion request ${via.slice('promotion-request:'.length)}` };
  if (via === 'rollout-rule') return { tool: 'system', label: "the stage's automatic rollback rule" };
  if (via === 'ring-worker') return { tool: 'system', label: 'the ringed rollout' };
  if (!via && (!actorEmail || actorEmail === 'system')) return { tool: 'system', label: 'the system (seed or script)' };
  return { tool: 'console', label: 'the console' };
}

/** The journey of one revision (404 when the policy or revision does not exist). */
export async function revisionJourney(actor: Actor, policyName: string, revisionId: string, now = new Date()): Promise<RevisionJourney> {
  assertCan(actor, 'policy.read');
  const client = db();
  const rev = await client.policyRevision.findFirst({
    where: { revisionId, policy: { name: policyName } },
    select: { id: true, createdAt: true, createdByEmail: true, origin: true, originDetail: true, policyId: true, groups: { select: { group: { select: { name: true, position: true } } } } },
  });
  if (!rev) throw notFound(`Cannot load policy ${policyName} with revision_id ${revisionId}`);
  const stages = (await client.policyGroup.findMany({ select: { name: true, position: true } })).filter((g) => can(actor, 'stage.view', { stage: g.name }));
  const viewable = stages.map((s) => s.name);
  const position = new Map(stages.map((s) => [s.name, s.position]));

  const [created, moves, runs, pending, scheduled, rings, verdicts] = await Promise.all([
    client.auditEvent.findFirst({
      where: { policyName, targetType: 'revision', target: `${policyName}@${revisionId}`, action: { in: CREATE_ACTIONS } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { actorEmail: true, via: true, createdAt: true, requestId: true, action: true },
    }),
    viewable.length
      ? client.auditEvent.findMany({
          where: { policyName, targetType: 'pointer', groupName: { in: viewable }, action: { startsWith: 'pointer.' }, OR: [{ after: { contains: revisionId } }, { before: { contains: revisionId } }] },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { id: true, action: true, groupName: true, actorEmail: true, via: true, before: true, after: true, reason: true, requestId: true, createdAt: true },
        })
      : Promise.resolve([]),
    viewable.length
      ? client.runReport.groupBy({
          by: ['groupName', 'nodeName', 'status'],
          where: { policyName, revisionId, groupName: { in: viewable }, status: { in: ['success', 'failure'] } },
          _count: { _all: true },
          _min: { endTime: true },
        })
      : Promise.resolve([]),
    viewable.length
      ? client.promotionRequest.findMany({
          where: { policyId: rev.policyId, toRevisionId: revisionId, status: 'pending', groupName: { in: viewable } },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { id: true, groupName: true, requesterEmail: true, createdAt: true, approvalsRequired: true, reasons: true, approvals: { orderBy: { createdAt: 'asc' }, select: { userEmail: true, createdAt: true, decision: true, comment: true } } },
        })
      : Promise.resolve([]),
    viewable.length
      ? client.scheduledPromotion.findMany({
          where: { policyName, toRevisionId: revisionId, status: 'pending', groupName: { in: viewable } },
          orderBy: [{ runAt: 'asc' }, { id: 'asc' }],
          select: { id: true, groupName: true, mode: true, runAt: true, createdByEmail: true },
        })
      : Promise.resolve([]),
    // Issue 43: its rings and where it failed.
    viewable.length
      ? client.ringRollout.findMany({
          where: { policyName, toRevisionId: revisionId, groupName: { in: viewable } },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { id: true, groupName: true, status: true, steps: true, percent: true, createdAt: true, createdByEmail: true, endedAt: true, endReason: true },
        })
      : Promise.resolve([]),
    viewable.length ? verdictsOf(client, { policies: [policyName], revisionId }) : Promise.resolve([]),
  ]);

  // The promotion requests the moves applied, with their approvals (one statement).
  const parsed = moves.map((m) => ({ ...m, beforeJson: parse(m.before), afterJson: parse(m.after) }));
  const requestIds = [...new Set(parsed.map((m) => str(m.afterJson.promotion_request)).filter((x): x is string => !!x))];
  const requests = requestIds.length
    ? await client.promotionRequest.findMany({
        where: { id: { in: requestIds } },
        select: { id: true, requesterEmail: true, createdAt: true, approvalsRequired: true, reasons: true, approvals: { orderBy: { createdAt: 'asc' }, select: { userEmail: true, createdAt: true, decision: true, comment: true } } },
      })
    : [];
  const requestDto = (r: (typeof requests)[number]): JourneyRequest => ({
    id: r.id,
    requester: r.requesterEmail,
    requested_at: r.createdAt.toISOString(),
    approvals_required: r.approvalsRequired,
    approvals: r.approvals.map((a) => ({ by: a.userEmail, at: a.createdAt.toISOString(), decision: a.decision === 'reject' ? 'reject' : 'approve', comment: a.comment })),
    reasons: (() => {
      try {
        return JSON.parse(r.reasons) as JourneyRequest['reasons'];
      } catch {
        return [];
      }
    })(),
  });
  const requestById = new Map(requests.map((r) => [r.id, requestDto(r)]));

  // Steps: each move onto the revision opens one; the next move of that stage off it closes it.
  const steps: JourneyStep[] = [];
  const open = new Map<string, JourneyStep>();
  for (const m of parsed) {
    const stage = m.groupName!;
    const to = str(m.afterJson.revision_id);
    const from = str(m.beforeJson.revision_id);
    const kind = m.action.slice('pointer.'.length);
    if (to === revisionId && from !== revisionId) {
      // A Chef-key `set` is the Chef API's PUT /policy_groups/:g/policies/:p: what `chef push` sends.
      const tool = journeyTool(m.via, m.actorEmail, { pushed: kind === 'set' });
      const freeze = m.afterJson.freeze_override as Json | undefined;
      const gate = m.afterJson.gate_override as Json | undefined;
      const artifacts = m.afterJson.artifacts_override as Json | undefined;
      const automatic = m.afterJson.automatic_rollback as Json | undefined;
      const requestId = str(m.afterJson.promotion_request);
      const step: JourneyStep = {
        stage,
        entered_at: m.createdAt.toISOString(),
        by: m.actorEmail,
        kind,
        tool: tool.tool,
        via: m.via,
        from_revision_id: from,
        reason: m.reason,
        request: requestId ? (requestById.get(requestId) ?? null) : null,
        overrides: {
          ...(freeze ? { freeze: { reason: String(freeze.reason ?? ''), by: String(freeze.by ?? m.actorEmail ?? 'system') } } : {}),
          ...(gate ? { gate: { reason: String(gate.reason ?? '') } } : {}),
          ...(artifacts ? { artifacts: { reason: String(artifacts.reason ?? ''), missing: Array.isArray(artifacts.missing) ? artifacts.missing.map(String) : [] } } : {}),
        },
        automatic_rollback: automatic ? { rule: String(automatic.rule ?? '') } : null,
        left_at: null,
        left: null,
        soak_ms: 0,
        current: false,
      };
      steps.push(step);
      open.set(stage, step);
    } else if (from === revisionId && to !== revisionId) {
      const step = open.get(stage);
      if (step) {
        step.left_at = m.createdAt.toISOString();
        step.left = { by: m.actorEmail, kind, to_revision_id: to };
        open.delete(stage);
      }
    }
  }
  const running = new Set(rev.groups.map((g) => g.group.name).filter((s) => position.has(s)));
  for (const s of steps) {
    s.current = !s.left_at && running.has(s.stage);
    const end = s.left_at ? new Date(s.left_at) : now;
    s.soak_ms = Math.max(0, end.getTime() - new Date(s.entered_at).getTime());
  }

  // Convergence per stage from the run reports (distinct nodes that converged it / failed on it).
  const byStage = new Map<string, { ok: Map<string, Date>; failed: Set<string>; okRuns: number; failedRuns: number }>();
  for (const r of runs) {
    const stage = r.groupName!;
    const agg = byStage.get(stage) ?? byStage.set(stage, { ok: new Map(), failed: new Set(), okRuns: 0, failedRuns: 0 }).get(stage)!;
    if (r.status === 'success') {
      agg.okRuns += r._count._all;
      if (r._min.endTime) agg.ok.set(r.nodeName, r._min.endTime);
    } else {
      agg.failedRuns += r._count._all;
      agg.failed.add(r.nodeName);
    }
  }
  const convergence: JourneyConvergence[] = [...byStage.entries()]
    .sort(([a], [b]) => (position.get(a) ?? 0) - (position.get(b) ?? 0) || (a < b ? -1 : 1))
    .map(([stage, agg]) => {
      const times = [...agg.ok.values()].map((d) => d.getTime());
      const first = times.length ? Math.min(...times) : null;
      const last = times.length ? Math.max(...times) : null;
      const entered = steps.find((s) => s.stage === stage)?.entered_at;
      return {
        stage,
        nodes_converged: agg.ok.size,
        nodes_failed: [...agg.failed].filter((n) => !agg.ok.has(n)).length,
        successful_runs: agg.okRuns,
        failed_runs: agg.failedRuns,
        first_success_at: first === null ? null : new Date(first).toISOString(),
        last_first_success_at: last === null ? null : new Date(last).toISOString(),
        converged_after_ms: last !== null && entered ? Math.max(0, last - new Date(entered).getTime()) : null,
      };
    });

  // Where it was first stored and through which tool (the seed writes no audit event: the revision row says).
  const pushed = created?.via?.startsWith('chef-key:') && created.requestId
    ? parsed.some((m) => m.requestId === created.requestId && m.via === created.via)
    : false;
  const tool = created ? journeyTool(created.via, created.actorEmail, { pushed }) : journeyTool(null, rev.createdByEmail);
  return {
    policy: policyName,
    revision_id: revisionId,
    created: {
      at: rev.createdAt.toISOString(),
      by: created?.actorEmail ?? rev.createdByEmail,
      origin: rev.origin,
      origin_detail: rev.originDetail ? parse(rev.originDetail) : null,
      tool: tool.tool,
      tool_label: tool.label,
      via: created?.via ?? null,
    },
    steps,
    convergence,
    pending_requests: pending.map((p) => ({ ...requestDto(p), stage: p.groupName })),
    current_stages: [...running].sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0)),
    scheduled: scheduled.map((x) => ({ id: x.id, stage: x.groupName, when: x.mode === 'freeze_end' ? 'freeze_end' : 'at', run_at: x.runAt.toISOString(), scheduled_by: x.createdByEmail })),
    rings: rings.map((r) => ({
      id: r.id,
      stage: r.groupName,
      status: r.status,
      steps: JSON.parse(r.steps) as number[],
      percent: r.percent,
      started_at: r.createdAt.toISOString(),
      started_by: r.createdByEmail,
      ended_at: r.endedAt?.toISOString() ?? null,
      end_reason: r.endReason,
      url: `/rings/${r.id}`,
    })),
    verdicts: verdicts.filter((v) => position.has(v.stage)).reverse(),
  };
}
