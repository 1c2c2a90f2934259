import type { HistoryEntry, StageEventEntry } from '@/lib/types/history';
import { db } from '../../db/client';

export type { HistoryEntry, StageEventEntry } from '@/lib/types/history';



/** Pointer history of a policy in a stage, newest first. */
export async function pointerHistory(group: string, policy: string): Promise<HistoryEntry[]> {
  const [rows, nodes] = await Promise.all([
    db().pointerHistory.findMany({ where: { groupName: group, policyName: policy }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 500 }),
    db().node.findMany({ where: { group: { name: group }, policy: { name: policy } }, select: { revisionApplied: true, lastCheckIn: true } }),
  ]);
  const convergence = (rev: string | null, since: Date) => {
    if (!rev) return null;
    const on = nodes.filter((n) => n.revisionApplied === rev);
    const last = on.reduce<Date | null>((m, n) => (n.lastCheckIn && n.lastCheckIn >= since && (!m || n.lastCheckIn > m) ? n.lastCheckIn : m), null);
    return { nodes: nodes.length, converged: on.length, lastConvergedAt: last?.toISOString() ?? null };
  };
  return rows.map((r) => ({
    id: r.id,
    at: r.createdAt.toISOString(),
    kind: r.kind,
    fromRevisionId: r.fromRevisionId,
    toRevisionId: r.toRevisionId,
    actor: r.actorEmail,
    reason: r.reason,
    convergence: convergence(r.toRevisionId, r.createdAt),
  }));
}

const EVENT_ACTIONS = ['ring.request', 'ring.start', 'ring.widen', 'ring.pause', 'ring.resume', 'ring.rollback', 'ring.complete', 'request.open', 'request.approve', 'request.reject', 'request.outdated', 'request.withdraw', 'revision.failed_in_stage'];

type Json = Record<string, unknown>;
const parse = (text: string | null): Json => {
  try {
    const v = text ? (JSON.parse(text) as unknown) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
  } catch {
    return {};
  }
};
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');

/**
 * Issue 43: a policy's rings, requests and recorded failures in a stage, newest first (the stage history shows
 * them beside the pointer's moves). The caller checked the viewer may view the stage.
 */
export async function stageEvents(group: string, policy: string): Promise<StageEventEntry[]> {
  const rows = await db().auditEvent.findMany({
    where: { groupName: group, policyName: policy, action: { in: EVENT_ACTIONS } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 500,
    select: { id: true, action: true, actorEmail: true, before: true, after: true, reason: true, createdAt: true },
  });
  const out: StageEventEntry[] = [];
  for (const r of rows) {
    const b = parse(r.before);
    const a = parse(r.after);
    const ring = str(a.ring) ?? str(b.ring);
    const request = str(a.request) ?? str(a.promotion_request);
    const links: { href: string; label: string }[] = [];
    if (ring) links.push({ href: `/rings/${encodeURIComponent(ring)}`, label: 'the ringed rollout' });
    if (request) links.push({ href: `/requests/${encodeURIComponent(request)}`, label: 'the request' });
    const from = str(b.revision_id);
    const to = str(a.revision_id);
    const why = r.reason ? ` (“${r.reason}”)` : '';
    let text: string | null = null;
    let kind: StageEventEntry['kind'] = 'ring';
    switch (r.action) {
      case 'ring.request':
        text = `Ringed rollout asked for: ${a.percent !== undefined && Array.isArray(a.steps) ? `steps ${(a.steps as number[]).join('% → ')}%` : 'a ring'}; it starts when its promotion request is approved; ${group} keeps running ${short(from)}${why}`;
        break;
      case 'ring.start':
        text = `Ring started: ${num(a.percent) ?? '?'}% of ${group} gets ${short(to)}; ${group} still runs ${short(from)}${Array.isArray(a.approved_by) ? ` (approved by ${(a.approved_by as string[]).join(', ')})` : ''}${why}`;
        break;
      case 'ring.widen':
        text = `Ring widened to ${num(a.percent) ?? '?'}% (step ${(num(a.step) ?? 0) + 1})${a.gate_override ? ` before it converged: ${String(a.gate_override)}` : ''}${why}`;
        break;
      case 'ring.pause':
        text = `Ring paused${why}`;
        break;
      case 'ring.resume':
        text = `Ring resumed${why}`;
        break;
      case 'ring.complete':
        text = `Ring completed: ${short(to)} is now ${group}'s revision${why}`;
        break;
      case 'ring.rollback': {
        const verdict = a.verdict as { summary?: string } | undefined;
        const returned = Array.isArray(a.returned_nodes) ? a.returned_nodes.length : 0;
        text = `Ring rolled back: ${returned} node${returned === 1 ? '' : 's'} return to ${short(to)}${why}${verdict?.summary ? `. ${verdict.summary}` : ''}`;
        break;
      }
      case 'request.open':
        kind = 'request';
        // A ring's request is told by its ring.request line.
        if (a.kind === 'ring') continue;
        text = `Promotion request opened: ${short(from)} → ${short(to)} needs ${num(a.approvals_required) ?? '?'} approval(s)${Array.isArray(a.reasons) && a.reasons.length ? ` (${String(a.reasons[0])})` : ''}${why}`;
        break;
      case 'request.approve':
        kind = 'request';
        text = `Request approved (${num(a.approvals) ?? '?'} of ${num(a.approvals_required) ?? '?'})${why}`;
        break;
      case 'request.reject':
        kind = 'request';
        text = `Request rejected${why}`;
        break;
      case 'request.withdraw':
        kind = 'request';
        text = 'Request withdrawn';
        break;
      case 'request.outdated':
        kind = 'request';
        text = `Request outdated: ${group} now runs ${short(str(a.current_revision_id))}, not what it was asked against; nothing moved`;
        break;
      case 'revision.failed_in_stage':
        kind = 'verdict';
        text = r.reason ?? 'The revision failed in this stage';
        break;
    }
    if (!text) continue;
    out.push({ id: r.id, at: r.createdAt.toISOString(), kind, action: r.action, actor: r.actorEmail, text, fromRevisionId: from, toRevisionId: to, links });
  }
  return out;
}
