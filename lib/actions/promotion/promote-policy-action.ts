'use server';

import { revalidatePath } from 'next/cache';
import { ZPromotePolicyInput, promotePolicy } from '@/lib/services/promotion';
import { authedAction } from '../safe-action';

export const promotePolicyAction = authedAction.inputSchema(ZPromotePolicyInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await promotePolicy(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
