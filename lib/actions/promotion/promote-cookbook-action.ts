'use server';

import { revalidatePath } from 'next/cache';
import { ZPromoteCookbookInput } from '@/lib/services/promote-cookbook';
import { promoteCookbook } from '@/lib/services/promote-cookbook';
import { authedAction } from '../safe-action';

export const promoteCookbookAction = authedAction.inputSchema(ZPromoteCookbookInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await promoteCookbook(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
