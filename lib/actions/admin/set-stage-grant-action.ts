'use server';

import { revalidatePath } from 'next/cache';
import { ZSetStageGrantInput, setStageGrant } from '@/lib/services/stages';
import { authedAction } from '../safe-action';

export const setStageGrantAction = authedAction.inputSchema(ZSetStageGrantInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await setStageGrant(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
