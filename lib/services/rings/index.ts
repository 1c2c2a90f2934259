/** The rings feature's public face: ringed rollouts inside a stage, and the ring a promotion request starts. Outside lib/services/rings/ only this file is imported. */
export { ringStartChoices } from './pages';
export { RING_REQUEST_KIND, activateRingForRequest } from './request-rings';
export {
  ZRingAction,
  ZStartRing,
  advanceRings,
  getRingRollout,
  judgeRingsAfterRun,
  listRingRollouts,
  pauseRingRollout,
  resumeRingRollout,
  ringOfRequest,
  rollBackRingRollout,
  startRingRollout,
  widenRingRollout,
} from './rings';
