export { evaluateApprovalRules, validateApprovalRules, attributePathMatches, newCoreClaims, APPROVAL_RULE_KINDS, MAX_APPROVALS, EXAMPLE_RULES } from './rules';
export type { ApprovalRule, ApprovalRuleKind, ApprovalReason, ApprovalRequirement, ApprovalInput, RuleProblem } from './rules';
export { activeOccurrence, nextOccurrence, freezeStatus, validateFreezeWindow, WEEK_MS } from './freeze';
export type { FreezeWindowSpec, FreezeOccurrence, FreezeStatus } from './freeze';
export { WEBHOOK_EVENT_NAMES } from './events';
export { evaluateMoveApproval, baselineGaps } from './move';
export type { HistoryLock, MoveApprovalInput, MoveApproval } from './move';
