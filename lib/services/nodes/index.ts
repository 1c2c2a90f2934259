/** The nodes feature's public face: Chef node objects, check-ins, the Nodes pages with their query-language search and saved searches. Outside lib/services/nodes/ only this file is imported. */
export {
  NODE_SELECT,
  createChefNode,
  deleteChefNode,
  getChefNode,
  getChefNodeDocument,
  listChefNodes,
  listChefNodesInEnvironment,
  moveNode,
  nodeDocument,
  nodeJson,
  normaliseNode,
  reportNode,
  updateChefNode,
  type ChefNode,
} from './nodes';
export { listNodes } from './queries';
export { nodePage } from './pages';
