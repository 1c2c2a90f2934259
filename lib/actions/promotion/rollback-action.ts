'use server';

import { revalidatePath } from 'next/cache';
import { ZRollbackInput } from '@/lib/services/rollback';
import { rollback } from '@/lib/services/rollback';
import { authedAction } from '../safe-action';

export const rollbackAction = authedAction.inputSchema(ZRollbackInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await rollback(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
