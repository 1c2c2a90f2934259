import type { Tx } from '@/lib/db/client';
import { conflict } from '@/lib/errors';
import { audit, type Actor } from './audit';

export type PointerKind = 'set' | 'promote' | 'promote-cookbook' | 'rollback' | 'remove' | 'seed';

export interface MovePointerInput {
  group: { id: string; name: string };
  policy: { id: string; name: string };
  /** The new revision (row id and revision_id); null removes the association. */
  to: { pk: string; revisionId: string } | null;
  kind: PointerKind;
  reason?: string | null;
  /**
   * What the caller saw in the group: a revision_id, null for "nothing", or
   * undefined to skip the check (plain Chef-style PUT). A mismatch is a 409.
   */
  expectedRevisionId?: string | null;
  requestId?: string | null;
  at?: Date;
  /**
   * A written reason to move into a stage that requires artifacts although
   * some are missing (audited). Without it such a move is a 409 listing them.
   */
  overrideReason?: string | null;
}

export interface MovePointerResult {
  fromRevisionId: string | null;
  toRevisionId: string | null;
  /** True when the group had no revision of this policy before. */
  created: boolean;
  changed: boolean;
  auditId: string | null;
}

/** 409 unless the stage still runs what the caller saw (`expected`: a revision id, or null for nothing). */
export function assertExpected(groupName: string, policyName: string, current: string | null, expected: string | null): void {
  if (expected === current) return;
  throw conflict(
    `'${groupName}' changed since you looked: it now runs ${current ? `revision ${current.slice(0, 10)}` : 'no revision'} of '${policyName}', not ${
      expected ? `revision ${expected.slice(0, 10)}` : 'nothing'
    }. Refresh and review the change again.`,
    { current_revision_id: current, expected_revision_id: expected },
  );
}

/**
 * Points a group at a revision (or removes the association), keeping history
 * and an audit event, inside the caller's transaction. The expected-revision
 * check and the write happen in the same transaction, so two racing callers
 * cannot both succeed.
 */
export async function movePointer(tx: Tx, actor: Actor | null, input: MovePointerInput): Promise<MovePointerResult> {
  const { group, policy, to } = input;
  const current = await tx.groupPolicy.findUnique({
    where: { groupId_policyId: { groupId: group.id, policyId: policy.id } },
    select: { id: true, revisionPk: true, revision: { select: { revisionId: true } } },
  });
  const fromRevisionId = current?.revision.revisionId ?? null;
  if (input.expectedRevisionId !== undefined) assertExpected(group.name, policy.name, fromRevisionId, input.expectedRevisionId);
  const toRevisionId = to?.revisionId ?? null;
  if (fromRevisionId === toRevisionId) return { fromRevisionId, toRevisionId, created: false, changed: false, auditId: null };

  let artifactOverride: { reason: string; missing: string[] } | null = null;
  if (to) {
    const setting = await tx.policyGroup.findUnique({ where: { id: group.id }, select: { requireArtifacts: true } });
    if (setting?.requireArtifacts) {
      const missing = await missingArtifacts(tx, to.pk);
      if (missing.length) {
        const reason = input.overrideReason?.trim();
        if (!reason) {
          throw conflict(`'${group.name}' requires every cookbook on the server, and ${missing.length} of revision ${to.revisionId.slice(0, 10)} are missing: ${missing.join(', ')}. Upload them (chef push), or give an override reason.`, {
            missing_artifacts: missing,
          });
        }
        artifactOverride = { reason, missing };
      }
    }
  }

  const now = input.at ?? new Date();
  if (!to) {
    // Conditional delete: only the row we read, so a concurrent change is never removed blindly.
    const { count } = await tx.groupPolicy.deleteMany({ where: { id: current!.id, revisionPk: current!.revisionPk } });
    if (count !== 1) throw conflict(`'${group.name}' changed while removing '${policy.name}'. Refresh and try again.`);
  } else if (current) {
    const { count } = await tx.groupPolicy.updateMany({
      where: { id: current.id, revisionPk: current.revisionPk },
      data: { revisionPk: to.pk, updatedById: actor?.userId ?? null, updatedByEmail: actor?.email ?? null, updatedAt: now },
    });
    if (count !== 1) throw conflict(`'${group.name}' changed while updating '${policy.name}'. Refresh and try again.`);
  } else {
    try {
      await tx.groupPolicy.create({
        data: { groupId: group.id, policyId: policy.id, revisionPk: to.pk, updatedById: actor?.userId ?? null, updatedByEmail: actor?.email ?? null, updatedAt: now },
      });
    } catch (e) {
      // Another writer created the association first: the unique (group, policy) key decides. A caller that
      // checked what it expected gets a 409; a blind set (Chef's PUT) keeps the raw error, so its caller's
      // retry (retryUniqueConflicts) runs the transaction again and replaces what the winner set.
      if ((e as { code?: string }).code === 'P2002' && input.expectedRevisionId !== undefined) throw conflict(`'${group.name}' changed while adding '${policy.name}'. Refresh and try again.`);
      throw e;
    }
  }
  await tx.pointerHistory.create({
    data: {
      groupName: group.name,
      policyName: policy.name,
      fromRevisionId,
      toRevisionId,
      kind: input.kind,
      reason: input.reason ?? null,
      actorId: actor?.userId ?? null,
      actorEmail: actor?.email ?? 'system',
      createdAt: now,
    },
  });
  const event = await audit(tx, actor, {
    action: `pointer.${input.kind}`,
    targetType: 'pointer',
    target: `${group.name}/${policy.name}`,
    groupName: group.name,
    policyName: policy.name,
    before: { revision_id: fromRevisionId },
    after: { revision_id: toRevisionId, ...(artifactOverride ? { artifacts_override: artifactOverride } : {}) },
    reason: input.reason ?? artifactOverride?.reason,
    requestId: input.requestId,
  });
  return { fromRevisionId, toRevisionId, created: !current, changed: true, auditId: event.id };
}

/** "name identifier" of every cookbook a revision pins that has no artifact on the server. */
export async function missingArtifacts(tx: Tx, revisionPk: string): Promise<string[]> {
  const rev = await tx.policyRevision.findUniqueOrThrow({ where: { id: revisionPk }, select: { cookbookDigest: true, document: true } });
  const pins: [string, string][] = rev.cookbookDigest
    ? Object.entries(JSON.parse(rev.cookbookDigest) as Record<string, string>).map(([name, v]) => [name, v.split('|')[1]])
    : Object.entries((JSON.parse(rev.document) as { cookbook_locks?: Record<string, { identifier?: string }> }).cookbook_locks ?? {}).map(([name, cb]) => [name, String(cb.identifier ?? '')]);
  if (!pins.length) return [];
  const present = await tx.cookbookArtifact.findMany({ where: { OR: pins.map(([name, identifier]) => ({ name, identifier })) }, select: { name: true, identifier: true } });
  const have = new Set(present.map((a) => `${a.name} ${a.identifier}`));
  return pins.map(([n, i]) => `${n} ${i}`).filter((p) => !have.has(p));
}
