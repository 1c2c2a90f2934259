export { promoteCookbookLock, type PromoteCookbookResult, type UnmetConstraint } from './promote';
export { moveEdges, stageRelation, versionOrder, type RelationMove, type RelationRevision } from './relation';
