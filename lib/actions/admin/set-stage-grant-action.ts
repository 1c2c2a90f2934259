'use server';

import { revalidatePath } from 'next/cache';
import { ZSetStageGrantInput } from '@/lib/services/set-stage-grant';
import { setStageGrant } from '@/lib/services/set-stage-grant';
import { authedAction } from '../safe-action';

export const setStageGrantAction = authedAction.inputSchema(ZSetStageGrantInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await setStageGrant(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
