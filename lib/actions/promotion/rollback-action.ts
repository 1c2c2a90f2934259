'use server';

import { revalidatePath } from 'next/cache';
import { ZRollbackInput, rollback } from '@/lib/services/promotion';
import { authedAction } from '../safe-action';

export const rollbackAction = authedAction.inputSchema(ZRollbackInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await rollback(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
