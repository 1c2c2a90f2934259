'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { deleteStage, moveStage, putStage, ZMoveStageInput, ZPutStageInput } from '@/lib/services/stages';
import { authedAction, serviceAction } from '../safe-action';
import { stageName } from '@/lib/validation/fields';
import { rotateValidatorFor } from '@/lib/services/clients';
import { chefOrg } from '@/lib/config';

export const putStageAction = serviceAction({ input: ZPutStageInput, run: putStage, revalidate: ['/', 'layout'] });

export const deleteStageAction = authedAction.inputSchema(z.object({ name: stageName })).action(async ({ parsedInput, ctx }) => {
  const r = await deleteStage(ctx.access, parsedInput.name);
  revalidatePath('/', 'layout');
  return { name: parsedInput.name, policies: Object.keys(r.policies ?? {}).length };
});

export const moveStageAction = serviceAction({ input: ZMoveStageInput, run: moveStage, revalidate: ['/', 'layout'] });

/** Issue 41: a stage's validator, created or its key rotated (administrators); the private key is returned once. */
export const stageValidatorAction = authedAction.inputSchema(z.object({ stage: stageName })).action(async ({ parsedInput, ctx }) => {
  const r = await rotateValidatorFor(ctx.access, chefOrg(), { stage: parsedInput.stage });
  revalidatePath('/admin/stages');
  return { name: r.name, stage: parsedInput.stage, privateKey: r.privateKey, created: r.created };
});
