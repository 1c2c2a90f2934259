'use server';

import { revalidatePath } from 'next/cache';
import { ZPromotePoliciesInput, promotePolicies } from '@/lib/services/promotion';
import { authedAction } from '../safe-action';

export const promotePoliciesAction = authedAction.inputSchema(ZPromotePoliciesInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await promotePolicies(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
