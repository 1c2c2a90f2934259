import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { freezeStatus, validateApprovalRules, type ApprovalRule } from '@/lib/domain';
import { db } from '../client';
import type { FreezeRow, StageGuardsRow } from '@/lib/types/guards';

export type { FreezeRow, StageGuardsRow } from '@/lib/types/guards';



/** Approval settings, approver grants and freeze windows of every stage the viewer may see (the admin Stages tab). */
export async function stageGuardsForAdmin(access: Access, now = new Date()): Promise<{ stages: StageGuardsRow[]; users: { id: string; email: string }[]; teams: { id: string; name: string }[] }> {
  const client = db();
  const [groups, users, teams] = await Promise.all([
    client.policyGroup.findMany({
      orderBy: [{ position: 'asc' }, { name: 'asc' }],
      select: {
        name: true,
        protection: { select: { approvalsRequired: true, rules: true } },
        approvers: { select: { principal: true, user: { select: { email: true } }, team: { select: { name: true } } }, orderBy: { createdAt: 'asc' } },
        freezes: { select: { id: true, startsAt: true, endsAt: true, weekly: true, reason: true, createdByEmail: true }, orderBy: { startsAt: 'asc' } },
      },
    }),
    client.user.findMany({ where: { active: true }, select: { id: true, email: true }, orderBy: { email: 'asc' } }),
    client.team.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } }),
  ]);
  return {
    users,
    teams,
    stages: groups
      .filter((g) => can(access, 'stage.view', { stage: g.name }))
      .map((g) => ({
        stage: g.name,
        canManage: can(access, 'stage.manage', { stage: g.name }),
        protection: g.protection ? { approvalsRequired: g.protection.approvalsRequired, rules: validateApprovalRules(safeJson(g.protection.rules)).rules } : null,
        approvers: g.approvers.map((a) =>
          a.team ? { principal: `team:${a.team.name}`, kind: 'team' as const, label: a.team.name } : { principal: `user:${a.user?.email ?? '?'}`, kind: 'user' as const, label: a.user?.email ?? a.principal },
        ),
        freezes: g.freezes.map((f) => {
          const spec = { id: f.id, startsAt: f.startsAt, endsAt: f.endsAt, weekly: f.weekly, reason: f.reason };
          return {
            id: f.id,
            startsAt: f.startsAt.toISOString(),
            endsAt: f.endsAt.toISOString(),
            weekly: f.weekly,
            reason: f.reason,
            createdBy: f.createdByEmail,
            active: freezeStatus([spec], now).active.length > 0,
            past: !f.weekly && f.endsAt <= now,
          };
        }),
      })),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return [];
  }
}
