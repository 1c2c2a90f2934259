/** The guards feature's public face: the rules on a stage: protection and approvers, freeze windows, bad revisions. Outside lib/services/guards/ only this file is imported. */
export { badRevisionState, badRevisionsOf, type BadMark } from './bad-revision-marks';
export { ZMarkBad, ZUnmarkBad, badRevisions, markRevisionBad, unmarkRevisionBad } from './bad-revisions';
export {
  ZAddFreeze,
  ZDeleteFreeze,
  ZSetApprover,
  ZSetStageProtection,
  addFreezeWindow,
  announceStartedFreezes,
  deleteFreezeWindow,
  getStageGuardState,
  getStageProtection,
  liftStageProtection,
  listFreezeWindows,
  setStageApprover,
  setStageProtection,
} from './settings';
