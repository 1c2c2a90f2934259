'use server';

import { revalidatePath } from 'next/cache';
import { markRevisionBad, unmarkRevisionBad, ZMarkBad, ZUnmarkBad } from '@/lib/services/guards';
import { authedAction } from '../safe-action';

/** Mark a revision bad: { policy, revisionId, reason }. */
export const markBadAction = authedAction.inputSchema(ZMarkBad.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await markRevisionBad(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

/** Unmark: { policy, revisionId, reason? }. */
export const unmarkBadAction = authedAction.inputSchema(ZUnmarkBad.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await unmarkRevisionBad(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
