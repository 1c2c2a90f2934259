/**
 * The one read model of stage guards (issue 22): protection, rules, approvers, freeze windows,
 * frozen-now and next freeze, pending requests and the viewer's part, for every stage the viewer may
 * see. The board, the admin Stages screen and the `/api/v1` guard, protection and freeze routes read
 * it here; five queries whatever the number of stages.
 */
import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { freezeStatus, validateApprovalRules, type ApprovalRule } from '@/lib/domain';
import { db, type Tx } from '../client';
import type { ApproverDto, FreezeWindowDto, StageGuardState } from '@/lib/types/guards';

export type { ApproverDto, FreezeWindowDto, StageGuardState, StageProtectionDto } from '@/lib/types/guards';

type WindowRow = { id: string; startsAt: Date; endsAt: Date; weekly: boolean; reason: string; createdByEmail: string | null; createdAt: Date };

const iso = (o: { start: Date; end: Date } | null) => (o ? { starts_at: o.start.toISOString(), ends_at: o.end.toISOString() } : null);

/** One freeze window as every reader shows it. */
export function freezeWindowDto(w: WindowRow, stage: string, now: Date): FreezeWindowDto {
  const s = freezeStatus([w], now);
  return {
    id: w.id,
    stage,
    starts_at: w.startsAt.toISOString(),
    ends_at: w.endsAt.toISOString(),
    weekly: w.weekly,
    reason: w.reason,
    created_by: w.createdByEmail,
    created_at: w.createdAt.toISOString(),
    active: iso(s.active[0] ?? null),
    next: iso(s.next),
    past: !w.weekly && w.endsAt.getTime() <= now.getTime(),
  };
}

function approverDto(a: { principal: string; user: { email: string } | null; team: { name: string } | null }): ApproverDto {
  if (a.team) return { principal: `team:${a.team.name}`, type: 'team', name: a.team.name };
  const email = a.user?.email ?? a.principal.replace(/^user:/, '');
  return { principal: `user:${email}`, type: 'user', name: email };
}

function rulesOf(text: string): ApprovalRule[] {
  try {
    return validateApprovalRules(JSON.parse(text)).rules;
  } catch {
    return [];
  }
}

/**
 * The guard state of every stage the viewer may see (promotion order), or of the named ones.
 * `tx` lets a write answer with the state it just committed.
 */
export async function stageGuardStates(access: Access, opts: { now?: Date; stages?: string[]; tx?: Tx } = {}): Promise<StageGuardState[]> {
  const client = opts.tx ?? db();
  const now = opts.now ?? new Date();
  const named = opts.stages ? { name: { in: opts.stages } } : {};
  const [groups, pending, mine] = await Promise.all([
    client.policyGroup.findMany({
      where: named,
      orderBy: [{ position: 'asc' }, { name: 'asc' }],
      select: {
        id: true,
        name: true,
        protection: { select: { approvalsRequired: true, rules: true, updatedByEmail: true, updatedAt: true } },
        approvers: { select: { principal: true, user: { select: { email: true } }, team: { select: { name: true } } }, orderBy: { createdAt: 'asc' } },
        freezes: { select: { id: true, startsAt: true, endsAt: true, weekly: true, reason: true, createdByEmail: true, createdAt: true }, orderBy: [{ startsAt: 'desc' }, { id: 'asc' }] },
      },
    }),
    client.promotionRequest.groupBy({ by: ['groupId'], where: { status: 'pending', expiresAt: { gt: now } }, _count: { _all: true } }),
    client.stageApprover.findMany({ where: { principal: { in: [`user:${access.userId}`, ...[...access.teamIds].map((t) => `team:${t}`)] } }, select: { groupId: true } }),
  ]);
  const approverOf = new Set(mine.map((a) => a.groupId));
  const pendingBy = new Map(pending.map((p) => [p.groupId, p._count._all]));
  return groups
    .filter((g) => can(access, 'stage.view', { stage: g.name }))
    .map((g) => {
      const fs = freezeStatus(g.freezes, now);
      const last = fs.active.at(-1);
      const p = g.protection;
      return {
        stage: g.name,
        protected: !!p,
        approvals_required: p?.approvalsRequired ?? 0,
        rules: p ? rulesOf(p.rules) : [],
        approvers: g.approvers.map(approverDto),
        freezes: g.freezes.map((w) => freezeWindowDto(w, g.name, now)),
        frozen:
          last && fs.opensAt
            ? {
                window_id: last.window.id,
                reason: last.window.reason,
                weekly: last.window.weekly,
                ends_at: last.end.toISOString(),
                opens_at: fs.opensAt.toISOString(),
                windows: fs.active.map((o) => ({ id: o.window.id, reason: o.window.reason, ends_at: o.end.toISOString() })),
              }
            : null,
        next_freeze: fs.next ? { window_id: fs.next.window.id, reason: fs.next.window.reason, starts_at: fs.next.start.toISOString(), ends_at: fs.next.end.toISOString() } : null,
        pending_requests: pendingBy.get(g.id) ?? 0,
        viewer_is_approver: approverOf.has(g.id),
        viewer_can_manage: can(access, 'stage.manage', { stage: g.name }),
        updated_by: p?.updatedByEmail ?? null,
        updated_at: p?.updatedAt.toISOString() ?? null,
      };
    });
}

/** The users and teams the admin screen offers as approvers. */
export async function approverChoices(): Promise<{ users: { id: string; email: string }[]; teams: { id: string; name: string }[] }> {
  const client = db();
  const [users, teams] = await Promise.all([
    client.user.findMany({ where: { active: true }, select: { id: true, email: true }, orderBy: { email: 'asc' } }),
    client.team.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } }),
  ]);
  return { users, teams };
}
