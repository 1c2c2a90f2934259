/**
 * The search feature's public face: Chef search and partial search over nodes, clients and data bags, and the two page
 * reads that search (the Nodes page with its saved searches, the data bag pages with their chef-vault evaluation: they
 * move to nodes and data-bags once they read the index store with a viewer scope, docs/architecture.md 4.2). Outside
 * lib/services/search/ only this file is imported.
 */
export { dataBagDetail, dataBagItemDetail, dataBagsPage } from './data-bag-pages';
export {
  NODES_PAGE_ROWS,
  NODE_QUERY_EXAMPLES,
  SAVED_SEARCH_NAME_MAX,
  SAVED_SEARCH_QUERY_MAX,
  deleteSavedSearch,
  listSavedSearches,
  nodeQueryError,
  nodeRunStatus,
  saveSearch,
  searchNodesPage,
} from './nodes-page';
export { listSearchIndexes, partialSearch, search, searchBudget, type SearchParams } from './search';
