/**
 * The inputs of deciding on a promotion request (issue 15), one definition each: the server actions
 * (lib/actions/requests/request-actions.ts) parse with them, the /api/v1 contracts (lib/api/contracts/guarded.ts)
 * derive their bodies and path fields from them, and lib/services/promotion/requests.ts takes their parsed output.
 * Pure zod.
 */
import { z } from 'zod';
import { overrideReason } from './fields';

const requestIdentifier = z.string().min(1).max(100);

export const ZApproveRequest = z.object({
  id: requestIdentifier,
  comment: z.string().trim().max(2000, 'is at most 2000 characters').optional(),
  /** A freeze override when this approval applies the request during a freeze (needs `manage` on the stage). */
  overrideReason: overrideReason.optional().describe('A freeze override when this approval applies the request during a freeze (manage on the stage)'),
  requestId: z.string().max(100).optional(),
});
export type ApproveRequestInput = z.output<typeof ZApproveRequest>;

export const ZRejectRequest = ZApproveRequest.omit({ overrideReason: true }).extend({
  comment: z.string({ error: 'is required: say why you reject the change' }).trim().min(1, 'is required: say why you reject the change').max(2000, 'is at most 2000 characters'),
});
export type RejectRequestInput = z.output<typeof ZRejectRequest>;

export const ZWithdrawRequest = z.object({ id: requestIdentifier, requestId: z.string().max(100).optional() });
export type WithdrawRequestInput = z.output<typeof ZWithdrawRequest>;
