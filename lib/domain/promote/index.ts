export { promoteCookbookLock, type PromoteCookbookResult, type UnmetConstraint } from './promote';
