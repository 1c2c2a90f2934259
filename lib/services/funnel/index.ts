/** The funnel feature's public face: the write funnel (docs/architecture.md 4.1): every stored revision and every pointer move passes here, with its audit event and outbox event in the same transaction. Imported by services and the seed only. Outside lib/services/funnel/ only this file is imported. */
export { IMPORT_VIA_PREFIX, audit, type AuditActor, type SystemActor } from './audit';
export { AUTO_PROMOTE_ACTOR, automationState, holdAutomation, timelineLink, type AutomationStateDto, type AutomationWaitingDto } from './automation';
export { gateChecksOf, refreshChecks, runCheck } from './checks';
export { CORE_RESOURCE_NAMES, activeFreeze, badMarkOf, badRevisionError, moveRequirement, openRequestIfProtected, resolveFreeze } from './guard';
export {
  JOINT_REQUEST_KIND,
  applyJointRequest,
  freezeOverrideGiver,
  jointMembers,
  moveTogether,
  previewJointMove,
  staleJointMember,
  type JointMember,
} from './joint-move';
export { assertInputDepth, assertStorable } from './limits';
export { nextStagePosition, requireGroup, requirePolicy } from './lookup';
export { judgeMove } from './move-judge';
export { guardPreview } from './move-preview';
export { RefusedTarget, checkTargetUrl, guardedLookup, literalTargetRefused } from './net-guard';
export {
  WEBHOOK_EVENTS,
  WEBHOOK_FORMATS,
  absoluteUrl,
  emitEvent,
  formatOf,
  type EventMessage,
  type WebhookEvent,
  type WebhookFormat,
} from './outbox';
export { chooseOwnerTeam } from './owner-team';
export { parseInput } from './parse';
export { assertExpected, movePointer } from './pointer';
export {
  REQUEST_SELECT,
  REQUEST_STATUSES,
  effectiveStatus,
  requestLink,
  requestMessage,
  requestPath,
  requestTtlMs,
  requestUrl,
  toRequestDto,
  type PromotionDecisionDto,
  type PromotionRequestDto,
  type PromotionRequestStatus,
  type RequestDiffSummary,
  type RequestRow,
} from './request-dto';
export { outdateRequest, sweepOutdatedRequests } from './request-outdate';
export { isUniqueViolation, retryUniqueConflicts, transaction } from './retry';
export { evaluateStageGate, loadNodeFacts, missingAfterMs, resolveGate, type StageNodeFacts } from './rollout-gate';
export { MAX_DEPTH, checkRevision, contentHash, cookbookDigest, storeRevision, withoutServerFields } from './store-revision';
export { markOverridden, recordVerdict, resolveVerdict, verdictsOn, type StageVerdictDto } from './verdict';
