'use server';

import { approvePromotionRequest, rejectPromotionRequest, withdrawPromotionRequest, ZApproveRequest, ZRejectRequest, ZWithdrawRequest } from '@/lib/services/promotion';
import { serviceAction } from '../safe-action';

/** Approve (comment optional; `overrideReason` when the approval applies the request during a freeze and you manage the stage). */
export const approveRequestAction = serviceAction({ input: ZApproveRequest.omit({ requestId: true }), run: approvePromotionRequest, revalidate: ['/', 'layout'] });

/** Reject with a comment (required). */
export const rejectRequestAction = serviceAction({ input: ZRejectRequest.omit({ requestId: true }), run: rejectPromotionRequest, revalidate: ['/', 'layout'] });

/** Withdraw (the requester, or a manager of the stage). */
export const withdrawRequestAction = serviceAction({ input: ZWithdrawRequest.omit({ requestId: true }), run: withdrawPromotionRequest, revalidate: ['/', 'layout'] });
