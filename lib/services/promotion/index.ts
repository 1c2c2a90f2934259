/** The promotion feature's public face: moving revisions between stages: promote, bulk promote, cookbook promotion, rollback, the move preview, schedules, promotion requests and their pages. Outside lib/services/promotion/ only this file is imported. */
export { previewMove } from './move-preview';
export { ZPromoteCookbookInput, promoteCookbook } from './promote-cookbook';
export { ZPromotePoliciesInput, promotePolicies } from './promote-policies';
export { ZPromotePolicyInput, promotePolicy } from './promote-policy';
export { pendingApprovalCount } from './requests-badge';
export {
  requestDetailForPage,
  requestsForPage,
  type RequestDetailView,
  type RequestRow,
  type RequestsFilter,
  type RequestsView,
} from './requests-page';
export {
  ZApproveRequest,
  ZRejectRequest,
  ZWithdrawRequest,
  approvePromotionRequest,
  getPromotionRequest,
  listPromotionRequests,
  pendingRequestsByCell,
  rejectPromotionRequest,
  withdrawPromotionRequest,
  type PromotionRequestDto,
} from './requests';
export { ZRollbackInput, rollback } from './rollback';
export { applyDueScheduledPromotions, cancelScheduledPromotion, listScheduledPromotions, schedulePromotion } from './schedules';
