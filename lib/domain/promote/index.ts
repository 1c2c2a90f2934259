export { promoteCookbookLock, type PromoteCookbookResult, type UnmetConstraint } from './promote';
export { satisfies, parseConstraint, type ParsedConstraint } from './constraint';
