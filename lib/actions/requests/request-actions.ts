'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { approvePromotionRequest, rejectPromotionRequest, withdrawPromotionRequest } from '@/lib/services/promotion-requests';
import { authedAction } from '../safe-action';

const id = z.string().min(1).max(100);

/** Approve (comment optional; `overrideReason` when the approval applies the request during a freeze and you manage the stage). */
export const approveRequestAction = authedAction
  .inputSchema(z.object({ id, comment: z.string().max(2000).optional(), overrideReason: z.string().max(1000).optional() }))
  .action(async ({ parsedInput, ctx }) => {
    const result = await approvePromotionRequest(ctx.access, parsedInput);
    revalidatePath('/', 'layout');
    return result;
  });

/** Reject with a comment (required). */
export const rejectRequestAction = authedAction.inputSchema(z.object({ id, comment: z.string().max(2000) })).action(async ({ parsedInput, ctx }) => {
  const result = await rejectPromotionRequest(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

/** Withdraw (the requester, or a manager of the stage). */
export const withdrawRequestAction = authedAction.inputSchema(z.object({ id })).action(async ({ parsedInput, ctx }) => {
  const result = await withdrawPromotionRequest(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
