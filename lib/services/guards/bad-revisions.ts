/**
 * Bad revisions (issue 15): a revision marked bad cannot be promoted or rolled
 * back to anywhere (the guard in movePointer answers 409 naming who marked it
 * and why) until it is unmarked. Who may mark or unmark: anyone with promote
 * on a stage that runs the revision now, the policy's owner team, admins.
 */
import type { z } from 'zod';
import { db, type Tx } from '@/lib/db/client';
import { can, type Access } from '@/lib/auth/permissions';
import { conflict, forbidden, notFound } from '@/lib/errors';
import { audit, requirePolicy, emitEvent } from '@/lib/services/funnel';
import type { ZMarkBad, ZUnmarkBad } from '@/lib/validation/bad-revisions';

export interface BadRevisionDto {
  policy: string;
  revision_id: string;
  reason: string;
  marked_by: string;
  marked_at: string;
}

/** The inputs' one definition (parsed at the caller's edge: the actions, the API contract); the rules below need the database. */
export { ZMarkBad, ZUnmarkBad } from '@/lib/validation/bad-revisions';
export type MarkBadInput = z.output<typeof ZMarkBad>;
export type UnmarkBadInput = z.output<typeof ZUnmarkBad>;

async function loadRevision(tx: Tx, access: Access, policyName: string, revisionId: string) {
  const policy = await requirePolicy(tx, policyName);
  const rev = await tx.policyRevision.findUnique({ where: { policyId_revisionId: { policyId: policy.id, revisionId } }, select: { id: true, revisionId: true } });
  if (!rev) throw notFound(`Policy '${policy.name}' has no revision '${revisionId}'`);
  const running = await tx.groupPolicy.findMany({ where: { revisionPk: rev.id }, select: { group: { select: { name: true } } } });
  if (!can(access, 'revision.mark', { ownerTeamId: policy.ownerTeamId, stages: running.map((r) => r.group.name) })) {
    throw forbidden(`You may not mark revisions of '${policy.name}': only its owner team, administrators, and those who may promote into a stage running the revision may.`);
  }
  return { policy, rev };
}

/** Marks a revision bad (409 when it already is). */
export async function markRevisionBad(access: Access, input: MarkBadInput): Promise<BadRevisionDto> {
  return db().$transaction(async (tx) => {
    const { policy, rev } = await loadRevision(tx, access, input.policy, input.revisionId);
    // Issue 28: by (policy, revision id), so a mark outlives the revision's deletion and comes back with its re-upload.
    const existing = await tx.badRevision.findFirst({ where: { policyId: policy.id, revisionId: rev.revisionId }, select: { markedByEmail: true, reason: true } });
    if (existing) throw conflict(`Revision ${rev.revisionId.slice(0, 10)} of '${policy.name}' is already marked bad by ${existing.markedByEmail}: ${existing.reason}`);
    const now = new Date();
    let row;
    try {
      row = await tx.badRevision.create({ data: { policyId: policy.id, policyName: policy.name, revisionId: rev.revisionId, revisionPk: rev.id, reason: input.reason, markedById: access.userId, markedByEmail: access.email, createdAt: now } });
    } catch (e) {
      if ((e as { code?: string }).code === 'P2002') throw conflict(`Revision ${rev.revisionId.slice(0, 10)} of '${policy.name}' was just marked bad by someone else.`);
      throw e;
    }
    await audit(tx, access, { action: 'revision.mark_bad', targetType: 'revision', target: `${policy.name}@${rev.revisionId}`, policyName: policy.name, after: { bad: true }, reason: input.reason, requestId: input.requestId });
    const dto = { policy: policy.name, revision_id: rev.revisionId, reason: row.reason, marked_by: row.markedByEmail, marked_at: row.createdAt.toISOString() };
    await emitEvent(tx, 'revision.marked_bad', `${access.email} marked revision ${rev.revisionId.slice(0, 10)} of ${policy.name} bad: ${input.reason}`, { ...dto }, { at: now });
    return dto;
  });
}

/** Unmarks a bad revision (404 when it is not marked). */
export async function unmarkRevisionBad(access: Access, input: UnmarkBadInput): Promise<{ policy: string; revision_id: string; bad: false }> {
  return db().$transaction(async (tx) => {
    const { policy, rev } = await loadRevision(tx, access, input.policy, input.revisionId);
    const existing = await tx.badRevision.findFirst({ where: { policyId: policy.id, revisionId: rev.revisionId } });
    if (!existing) throw notFound(`Revision ${rev.revisionId.slice(0, 10)} of '${policy.name}' is not marked bad`);
    await tx.badRevision.delete({ where: { id: existing.id } });
    await audit(tx, access, { action: 'revision.unmark_bad', targetType: 'revision', target: `${policy.name}@${rev.revisionId}`, policyName: policy.name, before: { bad: true, reason: existing.reason, marked_by: existing.markedByEmail }, after: { bad: false }, reason: input.reason, requestId: input.requestId });
    return { policy: policy.name, revision_id: rev.revisionId, bad: false as const };
  });
}

/** Bad revisions, optionally of some policies, keyed `policy@revision_id` (board, compare and history markers). */
export async function badRevisions(policies?: string[]): Promise<Record<string, BadRevisionDto>> {
  const rows = await db().badRevision.findMany({ where: policies ? { policyName: { in: policies } } : {}, orderBy: { createdAt: 'asc' } });
  return Object.fromEntries(rows.map((r) => [`${r.policyName}@${r.revisionId}`, { policy: r.policyName, revision_id: r.revisionId, reason: r.reason, marked_by: r.markedByEmail, marked_at: r.createdAt.toISOString() }]));
}

/** Whether the viewer may mark/unmark this revision (for showing the button). */
export async function canMarkRevision(access: Access, policyName: string, revisionId: string): Promise<boolean> {
  try {
    await loadRevision(db(), access, policyName, revisionId);
    return true;
  } catch {
    return false;
  }
}
