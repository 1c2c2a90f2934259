/**
 * Guarded stages (issue 15): protection and its rules, approver grants and
 * freeze windows per stage, plus the board's per-stage status ("frozen now,
 * opens at", protected, pending requests).
 */
import type { z } from 'zod';
import { db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Access } from '@/lib/auth/permissions';
import { freezeStatus, validateApprovalRules, validateFreezeWindow, type ApprovalRule } from '@/lib/domain';
import { badRequest, notFound } from '@/lib/errors';
import { audit } from './internal/audit';
import { ZAddFreeze, ZDeleteFreeze, ZSetApprover, ZSetStageProtection } from '@/lib/validation/stage-guards';

export { ZAddFreeze, ZDeleteFreeze, ZSetApprover, ZSetStageProtection } from '@/lib/validation/stage-guards';
import { requireGroup } from './internal/lookup';
import { emitEvent } from './internal/outbox';

export type { ApprovalRule } from '@/lib/domain';

export interface ApproverDto {
  /** "user:<email>" or "team:<name>": what the inputs take. */
  principal: string;
  type: 'user' | 'team';
  /** The user's email or the team's name. */
  name: string;
}

export interface FreezeWindowDto {
  id: string;
  stage: string;
  starts_at: string;
  ends_at: string;
  weekly: boolean;
  reason: string;
  created_by: string | null;
  created_at: string;
  /** The occurrence covering now, if any. */
  active: { starts_at: string; ends_at: string } | null;
  /** The next occurrence after now (null for a past one-off window). */
  next: { starts_at: string; ends_at: string } | null;
  /** A one-off window that has ended. */
  past: boolean;
}

export interface StageProtectionDto {
  stage: string;
  protected: boolean;
  approvals_required: number;
  rules: ApprovalRule[];
  approvers: ApproverDto[];
  updated_by: string | null;
  updated_at: string | null;
}

/** What the board shows per stage. */
export interface StageStatusDto {
  stage: string;
  protected: boolean;
  approvals_required: number;
  rules: ApprovalRule[];
  /** Frozen now: the window(s) and when the stage opens. */
  frozen: { reason: string; window_id: string; ends_at: string; opens_at: string; windows: { id: string; reason: string; ends_at: string }[] } | null;
  /** The next freeze starting after now. */
  next_freeze: { window_id: string; reason: string; starts_at: string; ends_at: string } | null;
  pending_requests: number;
  /** Whether the viewer is an approver of this stage. */
  viewer_is_approver: boolean;
  /** Whether the viewer may override a freeze / edit protection and freezes here (manage). */
  viewer_can_manage: boolean;
}

async function approversOf(tx: Tx, groupId: string): Promise<ApproverDto[]> {
  const rows = await tx.stageApprover.findMany({ where: { groupId }, select: { principal: true, user: { select: { email: true } }, team: { select: { name: true } } }, orderBy: { createdAt: 'asc' } });
  return rows.map((r) => (r.user ? { principal: `user:${r.user.email}`, type: 'user' as const, name: r.user.email } : { principal: `team:${r.team?.name ?? '?'}`, type: 'team' as const, name: r.team?.name ?? '?' }));
}

/** The stage's protection, rules and approvers (view on the stage). */
export async function getStageProtection(access: Access, stage: string): Promise<StageProtectionDto> {
  const client = db();
  const group = await requireGroup(client, stage, access);
  const p = await client.stageProtection.findUnique({ where: { groupId: group.id } });
  return {
    stage: group.name,
    protected: !!p,
    approvals_required: p?.approvalsRequired ?? 0,
    rules: p ? (JSON.parse(p.rules) as ApprovalRule[]) : [],
    approvers: await approversOf(client, group.id),
    updated_by: p?.updatedByEmail ?? null,
    updated_at: p?.updatedAt.toISOString() ?? null,
  };
}

export type SetStageProtectionInput = z.output<typeof ZSetStageProtection>;

/** Sets a stage's protection (base approvals, rules) and optionally its approvers; `manage` on the stage. Input parsed by ZSetStageProtection at the caller's edge. */
export async function setStageProtection(access: Access, input: SetStageProtectionInput): Promise<StageProtectionDto> {
  return writeStageProtection(access, { ...input, protected: input.protected ?? true });
}

/** Lifts a stage's protection (approver grants stay); `manage` on the stage. */
export async function liftStageProtection(access: Access, input: { stage: string; requestId?: string }): Promise<StageProtectionDto> {
  return writeStageProtection(access, { stage: input.stage, protected: false, approvalsRequired: 0, requestId: input.requestId });
}

async function writeStageProtection(access: Access, input: SetStageProtectionInput & { protected: boolean }): Promise<StageProtectionDto> {
  const { rules, problems } = validateApprovalRules(input.rules ?? [], '/rules');
  if (problems.length) throw badRequest(problems[0].message, problems);
  await db().$transaction(async (tx) => {
    const group = await requireGroup(tx, input.stage, access);
    assertCan(access, 'stage.manage', { stage: group.name });
    const before = await tx.stageProtection.findUnique({ where: { groupId: group.id } });
    const now = new Date();
    if (input.protected) {
      const data = { approvalsRequired: input.approvalsRequired, rules: JSON.stringify(rules), updatedById: access.userId, updatedByEmail: access.email, updatedAt: now };
      await tx.stageProtection.upsert({ where: { groupId: group.id }, create: { groupId: group.id, ...data }, update: data });
    } else {
      await tx.stageProtection.deleteMany({ where: { groupId: group.id } });
    }
    let approvers: string[] | undefined;
    if (input.approvers) approvers = await replaceApprovers(tx, group.id, input.approvers);
    await audit(tx, access, {
      action: 'stage.protection',
      targetType: 'stage',
      target: group.name,
      groupName: group.name,
      before: before ? { protected: true, approvals_required: before.approvalsRequired, rules: JSON.parse(before.rules) } : { protected: false },
      after: input.protected ? { protected: true, approvals_required: input.approvalsRequired, rules, ...(approvers ? { approvers } : {}) } : { protected: false, ...(approvers ? { approvers } : {}) },
      requestId: input.requestId,
    });
  });
  return getStageProtection(access, input.stage);
}

async function replaceApprovers(tx: Tx, groupId: string, list: string[]): Promise<string[]> {
  const wanted = new Map<string, { userId: string | null; teamId: string | null }>();
  const errors: { path: string; message: string }[] = [];
  for (const [i, p] of list.entries()) {
    const [type, ...rest] = p.split(':');
    const name = rest.join(':');
    if (type === 'user') {
      const u = await tx.user.findUnique({ where: { email: name.toLowerCase() }, select: { id: true } });
      if (!u) errors.push({ path: `/approvers/${i}`, message: `approvers[${i}]: no user '${name}'` });
      else wanted.set(`user:${u.id}`, { userId: u.id, teamId: null });
    } else {
      const t = await tx.team.findUnique({ where: { name }, select: { id: true } });
      if (!t) errors.push({ path: `/approvers/${i}`, message: `approvers[${i}]: no team '${name}'` });
      else wanted.set(`team:${t.id}`, { userId: null, teamId: t.id });
    }
  }
  if (errors.length) throw badRequest(errors[0].message, errors);
  await tx.stageApprover.deleteMany({ where: { groupId, principal: { notIn: [...wanted.keys()] } } });
  const existing = new Set((await tx.stageApprover.findMany({ where: { groupId }, select: { principal: true } })).map((r) => r.principal));
  // A concurrent writer adding the same grant hits the unique (stage, principal) key: a 409, nothing half-written
  // (not caught here: on PostgreSQL a failed statement aborts the transaction).
  for (const [p, ids] of wanted) if (!existing.has(p)) await tx.stageApprover.create({ data: { groupId, principal: p, ...ids } });
  return list;
}

export type SetApproverInput = z.output<typeof ZSetApprover>;

/** Grants or removes one approver (user or team) on a stage; `manage` on the stage. Idempotent. Input parsed by ZSetApprover at the caller's edge. */
export async function setStageApprover(access: Access, input: SetApproverInput): Promise<{ stage: string; principal: string; approver: boolean; changed: boolean }> {
  return db().$transaction(async (tx) => {
    const group = await requireGroup(tx, input.stage, access);
    assertCan(access, 'stage.manage', { stage: group.name });
    let key: string;
    let ids: { userId: string | null; teamId: string | null };
    let label: string;
    if (input.subject.type === 'user') {
      const u = await tx.user.findUnique({ where: { email: input.subject.email }, select: { id: true } });
      if (!u) throw notFound(`No user '${input.subject.email}'`);
      key = `user:${u.id}`;
      ids = { userId: u.id, teamId: null };
      label = `user:${input.subject.email}`;
    } else {
      const t = await tx.team.findUnique({ where: { name: input.subject.name }, select: { id: true } });
      if (!t) throw notFound(`No team '${input.subject.name}'`);
      key = `team:${t.id}`;
      ids = { userId: null, teamId: t.id };
      label = `team:${input.subject.name}`;
    }
    let changed: boolean;
    if (input.approver) {
      // Idempotent; a concurrent identical grant hits the unique (stage, principal) key (409).
      const exists = await tx.stageApprover.findUnique({ where: { groupId_principal: { groupId: group.id, principal: key } }, select: { id: true } });
      if (!exists) await tx.stageApprover.create({ data: { groupId: group.id, principal: key, ...ids } });
      changed = !exists;
    } else {
      changed = (await tx.stageApprover.deleteMany({ where: { groupId: group.id, principal: key } })).count > 0;
    }
    if (changed) await audit(tx, access, { action: input.approver ? 'stage.approver.add' : 'stage.approver.remove', targetType: 'permission', target: `${group.name}/${label}`, groupName: group.name, after: { approver: input.approver }, requestId: input.requestId });
    return { stage: group.name, principal: label, approver: input.approver, changed };
  });
}

// ------------------------------------------------------------------ freezes

function freezeDto(w: { id: string; startsAt: Date; endsAt: Date; weekly: boolean; reason: string; createdByEmail: string | null; createdAt: Date }, stage: string, now: Date): FreezeWindowDto {
  const s = freezeStatus([w], now);
  const iso = (o: { start: Date; end: Date } | null) => (o ? { starts_at: o.start.toISOString(), ends_at: o.end.toISOString() } : null);
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

/** A stage's freeze windows, past ones included (view on the stage). */
export async function listFreezeWindows(access: Access, stage: string, now = new Date()): Promise<FreezeWindowDto[]> {
  const client = db();
  const group = await requireGroup(client, stage, access);
  const rows = await client.freezeWindow.findMany({ where: { groupId: group.id }, orderBy: [{ startsAt: 'desc' }, { id: 'asc' }] });
  return rows.map((w) => freezeDto(w, group.name, now));
}

export type AddFreezeInput = z.output<typeof ZAddFreeze>;

/** Adds a one-off or weekly freeze window (UTC); `manage` on the stage. Input parsed by ZAddFreeze at the caller's edge. */
export async function addFreezeWindow(access: Access, input: AddFreezeInput): Promise<FreezeWindowDto> {
  const problems = validateFreezeWindow(input.startsAt, input.endsAt, !!input.weekly);
  if (problems.length) throw badRequest(problems[0].message, problems);
  const now = new Date();
  return db().$transaction(async (tx) => {
    const group = await requireGroup(tx, input.stage, access);
    assertCan(access, 'stage.manage', { stage: group.name });
    const w = await tx.freezeWindow.create({ data: { groupId: group.id, startsAt: input.startsAt, endsAt: input.endsAt, weekly: !!input.weekly, reason: input.reason, createdById: access.userId, createdByEmail: access.email, createdAt: now } });
    const dto = freezeDto(w, group.name, now);
    await audit(tx, access, { action: 'stage.freeze.add', targetType: 'stage', target: group.name, groupName: group.name, after: { window: w.id, starts_at: dto.starts_at, ends_at: dto.ends_at, weekly: dto.weekly }, reason: input.reason, requestId: input.requestId });
    // `freeze.started` is announced by the worker's next pass (once per occurrence, whichever instance sees it first).
    return dto;
  });
}

/** Deletes a freeze window (ends it, if running); `manage` on the stage. Input parsed by ZDeleteFreeze at the caller's edge. */
export async function deleteFreezeWindow(access: Access, input: z.output<typeof ZDeleteFreeze>): Promise<{ deleted: true }> {
  return db().$transaction(async (tx) => {
    const group = await requireGroup(tx, input.stage, access);
    assertCan(access, 'stage.manage', { stage: group.name });
    const w = await tx.freezeWindow.findFirst({ where: { id: input.id, groupId: group.id } });
    if (!w) throw notFound(`Stage '${group.name}' has no freeze window '${input.id}'`);
    await tx.freezeWindow.delete({ where: { id: w.id } });
    await audit(tx, access, { action: 'stage.freeze.delete', targetType: 'stage', target: group.name, groupName: group.name, before: { window: w.id, starts_at: w.startsAt.toISOString(), ends_at: w.endsAt.toISOString(), weekly: w.weekly, reason: w.reason }, requestId: input.requestId });
    return { deleted: true as const };
  });
}

/** The `freeze.started` event for one occurrence, once (the outbox's unique dedupe key decides between instances). */
export async function emitFreezeStarted(tx: Tx, stage: string, windowId: string, reason: string, start: Date, end: Date, now: Date): Promise<number> {
  return emitEvent(tx, 'freeze.started', `${stage} is frozen until ${end.toISOString()}: ${reason}`, { stage, window_id: windowId, reason, starts_at: start.toISOString(), ends_at: end.toISOString() }, { at: now, dedupeKey: `freeze.started:${windowId}:${start.toISOString()}` });
}

/** Emits `freeze.started` for every occurrence that covers `now` and has not been announced (called by the webhook worker). */
export async function announceStartedFreezes(now = new Date()): Promise<number> {
  const client = db();
  if (!(await client.webhookSubscription.count({ where: { active: true } }))) return 0;
  const windows = await client.freezeWindow.findMany({ where: { startsAt: { lte: now } }, select: { id: true, startsAt: true, endsAt: true, weekly: true, reason: true, group: { select: { name: true } } } });
  let n = 0;
  for (const w of windows) {
    const o = freezeStatus([w], now).active[0];
    if (!o) continue;
    try {
      if (await client.$transaction((tx) => emitFreezeStarted(tx, w.group.name, w.id, w.reason, o.start, o.end, now))) n++;
    } catch (e) {
      if ((e as { code?: string }).code !== 'P2002') throw e; // another instance announced it first (its transaction won the unique key)
    }
  }
  return n;
}

// ------------------------------------------------------------ board status

/** Per visible stage: protection, freeze now / next, pending requests; for the board, banners and the admin Stages tab. */
export async function stageStatuses(access: Access, now = new Date()): Promise<Record<string, StageStatusDto>> {
  const client = db();
  const [groups, protections, windows, pending, approverRows] = await Promise.all([
    client.policyGroup.findMany({ select: { id: true, name: true }, orderBy: [{ position: 'asc' }, { name: 'asc' }] }),
    client.stageProtection.findMany({ select: { groupId: true, approvalsRequired: true, rules: true } }),
    client.freezeWindow.findMany({ where: { startsAt: { lte: new Date(now.getTime() + 366 * 24 * 3600 * 1000) } }, select: { id: true, groupId: true, startsAt: true, endsAt: true, weekly: true, reason: true } }),
    client.promotionRequest.groupBy({ by: ['groupId'], where: { status: 'pending', expiresAt: { gt: now } }, _count: { _all: true } }),
    client.stageApprover.findMany({ where: { principal: { in: [`user:${access.userId}`, ...[...access.teamIds].map((t) => `team:${t}`)] } }, select: { groupId: true } }),
  ]);
  const approverOf = new Set(approverRows.map((a) => a.groupId));
  const out: Record<string, StageStatusDto> = {};
  for (const g of groups) {
    if (!can(access, 'stage.view', { stage: g.name })) continue;
    const p = protections.find((x) => x.groupId === g.id);
    const ws = windows.filter((w) => w.groupId === g.id);
    const fs = freezeStatus(ws, now);
    out[g.name] = {
      stage: g.name,
      protected: !!p,
      approvals_required: p?.approvalsRequired ?? 0,
      rules: p ? (JSON.parse(p.rules) as ApprovalRule[]) : [],
      frozen: fs.active.length
        ? {
            reason: fs.active[0].window.reason,
            window_id: fs.active[0].window.id,
            ends_at: fs.active[0].end.toISOString(),
            opens_at: fs.opensAt!.toISOString(),
            windows: fs.active.map((o) => ({ id: o.window.id, reason: o.window.reason, ends_at: o.end.toISOString() })),
          }
        : null,
      next_freeze: fs.next ? { window_id: fs.next.window.id, reason: fs.next.window.reason, starts_at: fs.next.start.toISOString(), ends_at: fs.next.end.toISOString() } : null,
      pending_requests: pending.find((x) => x.groupId === g.id)?._count._all ?? 0,
      viewer_is_approver: approverOf.has(g.id),
      viewer_can_manage: can(access, 'stage.manage', { stage: g.name }),
    };
  }
  return out;
}
