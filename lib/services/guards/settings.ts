/**
 * Guarded stages (issue 15): protection and its rules, approver grants and
 * freeze windows per stage. What every screen and route reads of them is one
 * shape, `StageGuardState`, built by lib/db/queries/stage-guard-state.ts.
 */
import type { z } from 'zod';
import { db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Access } from '@/lib/auth/permissions';
import { freezeStatus, validateApprovalRules, validateFreezeWindow, type ApprovalRule } from '@/lib/domain';
import { badRequest, notFound } from '@/lib/errors';
import { audit, requireGroup, emitEvent } from '@/lib/services/funnel';
import { ZAddFreeze, ZDeleteFreeze, ZSetApprover, ZSetStageProtection } from '@/lib/validation/stage-guards';

export { ZAddFreeze, ZDeleteFreeze, ZSetApprover, ZSetStageProtection } from '@/lib/validation/stage-guards';
import { freezeWindowDto, stageGuardStates } from '@/lib/db/queries/stage-guard-state';
import type { FreezeWindowDto, StageGuardState, StageProtectionDto } from '@/lib/types/guards';

export type { ApprovalRule } from '@/lib/domain';

export type { ApproverDto, FreezeWindowDto, StageGuardState, StageProtectionDto } from '@/lib/types/guards';

const protectionOf = (g: StageGuardState): StageProtectionDto => ({
  stage: g.stage,
  protected: g.protected,
  approvals_required: g.approvals_required,
  rules: g.rules,
  approvers: g.approvers,
  updated_by: g.updated_by,
  updated_at: g.updated_at,
});

/** One stage's guard state (view on the stage; 403 before 404 as `requireGroup` decides). */
export async function getStageGuardState(access: Access, stage: string, now = new Date()): Promise<StageGuardState> {
  const group = await requireGroup(db(), stage, access);
  const [state] = await stageGuardStates(access, { now, stages: [group.name] });
  if (!state) throw notFound(`Cannot find policy group '${stage}'`);
  return state;
}

/** The stage's protection, rules and approvers (view on the stage): the protection part of its guard state. */
export async function getStageProtection(access: Access, stage: string): Promise<StageProtectionDto> {
  return protectionOf(await getStageGuardState(access, stage));
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

/** A stage's freeze windows, past ones included (view on the stage): the freeze part of its guard state. */
export async function listFreezeWindows(access: Access, stage: string, now = new Date()): Promise<FreezeWindowDto[]> {
  return (await getStageGuardState(access, stage, now)).freezes;
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
    const dto = freezeWindowDto(w, group.name, now);
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

