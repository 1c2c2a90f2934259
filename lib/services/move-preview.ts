/**
 * Issue 29: the guard's answer before the click, for every kind of move a
 * dialog can make. Each kind resolves its target exactly as its mutation
 * does (promotionSource, rollbackTarget, the cookbook promotion's own dry
 * run), then asks guardPreview — the dry run of the judgement movePointer
 * enforces. Read-only: nothing is stored.
 */
import { z } from 'zod';
import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { badRequest } from '@/lib/errors';
import type { MovePreviewDto } from '@/lib/types/move-preview';
import { chefName, cookbookName } from '@/lib/validation/fields';
import { requireGroup, requirePolicy } from './internal/lookup';
import { guardPreview } from './internal/move-preview';
import { parseInput } from './internal/parse';
import { promoteCookbook } from './promote-cookbook';
import { promotionSource } from './promote-policy';
import { rollbackTarget } from './rollback';

export type { MovePreviewDto } from '@/lib/types/move-preview';

const name = chefName();
export const ZPreviewMoveInput = z
  .object({
    policy: name,
    /** The stage the pointer would move in. */
    stage: name,
    /** promote: the revision `from` runs (a stage, or rev:<id>); promote-cookbook: one cookbook of `from`; rollback: back to `revisionId`. */
    kind: z.enum(['promote', 'promote-cookbook', 'rollback'], { error: "must be 'promote', 'promote-cookbook' or 'rollback'" }),
    from: name.optional(),
    cookbook: cookbookName.optional(),
    revisionId: name.optional(),
    /** What the caller saw in the stage (null: nothing); only the cookbook promotion derives from it. */
    expectedRevisionId: name.nullable().optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.kind === 'promote' || v.kind === 'promote-cookbook') && !v.from) ctx.addIssue({ code: 'custom', path: ['from'], message: `is required for kind '${v.kind}'` });
    if (v.kind === 'promote-cookbook' && !v.cookbook) ctx.addIssue({ code: 'custom', path: ['cookbook'], message: "is required for kind 'promote-cookbook'" });
    if (v.kind === 'rollback' && !v.revisionId) ctx.addIssue({ code: 'custom', path: ['revisionId'], message: "is required for kind 'rollback'" });
  });
export type PreviewMoveInput = z.input<typeof ZPreviewMoveInput>;

/** What confirming this move would do now, for this user (stage.view on the stage; the answer says when they may not promote). */
export async function previewMove(access: Access, raw: PreviewMoveInput): Promise<MovePreviewDto> {
  const input = parseInput(ZPreviewMoveInput, raw);
  if (input.from === input.stage) throw badRequest('A stage cannot be promoted into itself', [{ path: '/from', message: 'from must differ from stage' }]);
  if (input.kind === 'promote-cookbook') {
    const r = await promoteCookbook(access, { policy: input.policy, cookbook: input.cookbook!, from: input.from!, to: input.stage, expectedRevisionId: input.expectedRevisionId ?? null, dryRun: true });
    if ('guard' in r && r.guard) return r.guard;
    // Nothing to derive: the stage already runs this cookbook version.
    return db().$transaction(async (tx) => {
      const [group, policy] = await Promise.all([requireGroup(tx, input.stage, access), requirePolicy(tx, input.policy)]);
      return guardPreview(tx, access, { group, policy, to: { pk: '', revisionId: r.revisionId }, kind: 'promote-cookbook' });
    });
  }
  return db().$transaction(async (tx) => {
    const [group, policy] = await Promise.all([requireGroup(tx, input.stage, access), requirePolicy(tx, input.policy)]);
    assertCan(access, 'stage.view', { stage: group.name });
    if (input.kind === 'promote') {
      const { source } = await promotionSource(tx, access, policy, input.from!);
      return guardPreview(tx, access, { group, policy, to: { pk: source.revisionPk, revisionId: source.revision.revisionId }, kind: 'promote' });
    }
    const rev = await rollbackTarget(tx, group, policy, input.revisionId!);
    return guardPreview(tx, access, { group, policy, to: { pk: rev.id, revisionId: input.revisionId! }, kind: 'rollback' });
  });
}
