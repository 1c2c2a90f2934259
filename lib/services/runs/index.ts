/** The runs feature's public face: chef-client run reports (both data collector forms), node run history, rollout health, gate state, automatic rollback and promotion, rollout rules, attribution and outcomes. Outside lib/services/runs/ only this file is imported. */
export { autoPromotePass, resumeAutomation, stageTimeline, type TimelineEntryDto } from './auto-promote';
export {
  ZSetStageRolloutRule,
  evaluateRollbacks,
  gateState,
  getStageRolloutRule,
  missingAfterMs,
  nodeRunHistory,
  rolloutHealth,
  servedRevisions,
  setStageRolloutRule,
  stageHealth,
  stageRuns,
  type RunReportDto,
  type StageHealthDto,
} from './health';
export { cleanupRunReports, ingestRunMessage } from './ingest';
export {
  changeAttributions,
  rolloutOutcomes,
  rolloutRulesForAdmin,
  type AdminRolloutRuleRow,
  type ChangeAttribution,
  type RolloutOutcomeDto,
} from './views';
