'use server';

import { revalidatePath } from 'next/cache';
import { ZPromoteCookbookInput, promoteCookbook } from '@/lib/services/promotion';
import { authedAction } from '../safe-action';

export const promoteCookbookAction = authedAction.inputSchema(ZPromoteCookbookInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await promoteCookbook(ctx.access, parsedInput);
  // A preview writes nothing: revalidating would re-render the page under the open dialog.
  if (!parsedInput.dryRun) revalidatePath('/', 'layout');
  return result;
});
