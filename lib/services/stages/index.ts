/** The stages feature's public face: stages (policy groups): create, order, delete, grants, what a stage runs, stage binding, history. Outside lib/services/stages/ only this file is imported. */
export { assertClientPlacement, assertNodeClientRights, assertStageClaim, enrollmentForAdmin, mayEnroll, moveTargets, nodeStage } from './binding';
export { ZSetStageGrantInput, setStageGrant } from './grants';
export { pointerHistory, stageEvents } from './history';
export { ZMoveStageInput, ZPutStageInput, deleteStage, moveStage, putStage } from './manage';
export { removeGroupPolicy, setGroupPolicy } from './pointer-writes';
export { permissionsMatrix, stagesForAdmin } from './pages';
