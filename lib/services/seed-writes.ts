/**
 * The writers the demo seed (lib/seed) stores through: the same revision
 * funnel (checkRevision → storeRevision), pointer moves and audit events as
 * every service, so seeded data meets the rules uploaded data meets. The seed
 * imports these from here, not from services/internal.
 */
export { audit } from './internal/audit';
export { movePointer } from './internal/pointer';
export { checkRevision, storeRevision } from './internal/store-revision';
/** Issue 15: the demo's pending promotion request is opened by the same guard every move passes. */
export { openRequestIfProtected } from './internal/guard';
export { requestTtlMs } from './internal/request-dto';
/** Issue 25: demo nodes enter the search index as every node does. */
export { indexNode } from './internal/search-index';
/** Issue 24: the demo's data bags and vault clients enter the search index as every item and client does. */
export { indexClient } from './internal/search-index';
export { indexDataBagItem } from './internal/data-bag-index';
export { NODE_SELECT, nodeJson } from './chef-nodes';
