/**
 * Issues 43 and 41: stage verdicts — a revision failed in a stage (a canary ring rolled back for its nodes'
 * failures, or the stage's automatic rollback rule moved the stage off it). One model for both sources:
 *
 * - recorded once (the unique `key`: `ring:<id>`, `rollback:<pointer history id>`) in the transaction that
 *   ends the ring or moves the stage back, with the evidence (distinct nodes, the resource and cookbook most
 *   of them stopped at, their names);
 * - read by the one guard (judgeMove): moving the revision into THAT stage again is refused (409) unless
 *   someone who manages the stage writes an override (kept on the verdict row, in the audit event and the
 *   history line); a protected stage's request carries the override to its apply;
 * - in every other stage it is information, never a refusal: the guard's answer before the click, the
 *   board, the journey and the stage history say "failed in a canary ring in qa …".
 *
 * A person's bad mark (lib/services/guards/bad-revisions.ts) stays what it was: a global refusal, by a person,
 * with a reason. Automatic decisions no longer make global marks.
 */
import type { Tx } from '@/lib/db/client';
import { AppError, forbidden } from '@/lib/errors';
import { dateTime } from '@/lib/format';
import { verdictLine, type StageVerdictDto, type VerdictSource } from '@/lib/types/verdicts';
import { toVerdictDto, VERDICT_SELECT } from '@/lib/db/queries/verdicts';
import type { AuditActor } from './audit';
import { mayOverrideGuards } from './guard';

export type { StageVerdictDto } from '@/lib/types/verdicts';
export { verdictsOf, verdictsOn } from '@/lib/db/queries/verdicts';

export interface VerdictInput {
  key: string;
  stage: string;
  policy: string;
  revisionId: string;
  source: VerdictSource;
  ringId?: string | null;
  nodes: number;
  failedNodes: number;
  failedResource: string | null;
  failedCookbook: string | null;
  failedNodeNames: string[];
  extra?: Record<string, unknown>;
  at: Date;
}

/**
 * Records a verdict inside the caller's transaction, once: a second call with the same key (a retry, another
 * instance) finds it and answers it. Answers the verdict.
 */
export async function recordVerdict(tx: Tx, v: VerdictInput): Promise<StageVerdictDto> {
  const existing = await tx.stageVerdict.findUnique({ where: { key: v.key }, select: VERDICT_SELECT });
  if (existing) return toVerdictDto(existing);
  const line = verdictLine(
    { source: v.source, stage: v.stage, nodes: v.nodes, failed_nodes: v.failedNodes, failed_resource: v.failedResource, failed_cookbook: v.failedCookbook },
    `on ${dateTime(v.at)}`,
  );
  const row = await tx.stageVerdict.create({
    data: {
      key: v.key,
      groupName: v.stage,
      policyName: v.policy,
      revisionId: v.revisionId,
      source: v.source,
      ringId: v.ringId ?? null,
      nodes: v.nodes,
      failedNodes: v.failedNodes,
      failedResource: v.failedResource?.slice(0, 300) ?? null,
      failedCookbook: v.failedCookbook?.slice(0, 255) ?? null,
      evidence: JSON.stringify({ failed_nodes: v.failedNodeNames.slice(0, 50), ...v.extra }),
      summary: `Revision ${v.revisionId.slice(0, 10)} of ${v.policy} ${line}`.slice(0, 1000),
      createdAt: v.at,
    },
    select: VERDICT_SELECT,
  });
  return toVerdictDto(row);
}

/** A verdict overridden by a move: who, why, and the verdicts it set aside. */
export interface VerdictOverride {
  reason: string;
  verdicts: StageVerdictDto[];
  by: string;
}

/** The refusal's words for a verdict in the target stage (no API field name: the field is in the details). */
export function verdictRefusal(stage: string, policy: string, verdicts: StageVerdictDto[]): AppError {
  const v = verdicts[verdicts.length - 1];
  return new AppError(
    'conflict',
    `Revision ${v.revision_id.slice(0, 10)} of '${policy}' ${verdictLine(v, `on ${dateTime(v.at)}`)}. It does not go into ${stage} again unless someone who manages ${stage} moves it with a written reason for overriding that verdict.`,
    [],
    { stage_verdict: v, override_field: 'verdict_override_reason' },
  );
}

/**
 * The verdict check of a move into `group` (given judgeMove's verdicts in that stage): null when there is
 * none; the override when a manager gave a written reason (or an approved request carried one); else a 409.
 */
export async function resolveVerdict(
  tx: Tx,
  group: { name: string },
  policy: { name: string },
  here: StageVerdictDto[],
  actor: AuditActor | null,
  overrideReason: string | null | undefined,
  approvedRequestId?: string,
): Promise<VerdictOverride | null> {
  if (!here.length) return null;
  let reason = overrideReason?.trim() || null;
  let by = actor?.email ?? 'system';
  let authorised = false;
  if (approvedRequestId) {
    // A manager's override given with the request (kept in its origin) carries to the apply.
    const req = await tx.promotionRequest.findUnique({ where: { id: approvedRequestId }, select: { origin: true } });
    const carried = req ? ((JSON.parse(req.origin) as { verdict_override?: { reason?: string; by?: string } }).verdict_override ?? null) : null;
    if (carried?.reason) {
      reason = carried.reason;
      by = carried.by ?? by;
      authorised = true;
    }
  }
  if (!reason) throw verdictRefusal(group.name, policy.name, here);
  if (!authorised && !mayOverrideGuards(actor, group.name)) {
    throw forbidden(`Revision ${here[0].revision_id.slice(0, 10)} of '${policy.name}' failed in ${group.name} before; only those who manage ${group.name} may move it there again.`);
  }
  return { reason, verdicts: here, by };
}

/** Sets the overridden verdicts aside (kept, with who and why), in the transaction of the move that overrode them. */
export async function markOverridden(tx: Tx, o: VerdictOverride, at: Date): Promise<void> {
  await tx.stageVerdict.updateMany({ where: { id: { in: o.verdicts.map((v) => v.id) }, overriddenAt: null }, data: { overriddenAt: at, overriddenByEmail: o.by, overrideReason: o.reason.slice(0, 1000) } });
}
