'use server';

import { revalidatePath } from 'next/cache';
import { approvePromotionRequest, rejectPromotionRequest, withdrawPromotionRequest, ZApproveRequest, ZRejectRequest, ZWithdrawRequest } from '@/lib/services/promotion';
import { authedAction } from '../safe-action';

/** Approve (comment optional; `overrideReason` when the approval applies the request during a freeze and you manage the stage). */
export const approveRequestAction = authedAction.inputSchema(ZApproveRequest.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await approvePromotionRequest(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

/** Reject with a comment (required). */
export const rejectRequestAction = authedAction.inputSchema(ZRejectRequest.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await rejectPromotionRequest(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

/** Withdraw (the requester, or a manager of the stage). */
export const withdrawRequestAction = authedAction.inputSchema(ZWithdrawRequest.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await withdrawPromotionRequest(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
