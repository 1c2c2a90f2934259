/**
 * Issue 29: the guard's answer before the click, for every kind of move a
 * dialog can make. Each kind resolves its target exactly as its mutation
 * does (promotionSource, rollbackTarget, the cookbook promotion's own dry
 * run), then asks guardPreview — the dry run of the judgement movePointer
 * enforces. Read-only: nothing is stored.
 */
import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { badRequest } from '@/lib/errors';
import type { MovePreviewDto } from '@/lib/types/move-preview';
import type { PreviewMoveInput } from '@/lib/validation/move-preview';
import { requireGroup, requirePolicy, guardPreview } from '@/lib/services/funnel';
import { promoteCookbook } from './promote-cookbook';
import { promotionSource, refreshGateChecks } from './promote-policy';
import { rollbackTarget } from './rollback';

export type { MovePreviewDto } from '@/lib/types/move-preview';

/** What confirming this move would do now, for this user (stage.view on the stage; the answer says when they may not promote). */
export async function previewMove(access: Access, input: PreviewMoveInput): Promise<MovePreviewDto> {
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
  // Issue 47: the gate's outside checks, evaluated now (outside the transaction) so the answer shows them fresh.
  if (input.kind === 'promote' && input.from) {
    await requireGroup(db(), input.stage, access);
    await refreshGateChecks(access, input.stage, input.policy, input.from);
  }
  return db().$transaction(async (tx) => {
    const [group, policy] = await Promise.all([requireGroup(tx, input.stage, access), requirePolicy(tx, input.policy)]);
    assertCan(access, 'stage.view', { stage: group.name });
    if (input.kind === 'promote') {
      const { source } = await promotionSource(tx, access, policy, input.from!);
      return guardPreview(tx, access, { group, policy, to: { pk: source.revisionPk, revisionId: source.revision.revisionId }, kind: 'promote' });
    }
    const rev = await rollbackTarget(tx, group, policy, input.toRevisionId!);
    return guardPreview(tx, access, { group, policy, to: { pk: rev.id, revisionId: input.toRevisionId! }, kind: 'rollback' });
  });
}
