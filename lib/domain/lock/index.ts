export * from './types';
export { validateLock, NAME_PATTERN, COOKBOOK_NAME_PATTERN, RUN_LIST_ITEM_PATTERN, VERSION_PATTERN } from './validate';
export { computeRevisionId, revisionIdText } from './revision-id';
export { parseLossless } from './lossless';
export { jsonDepth, pointer, defineKey, KEY_ORDER, orderedKeys, setKeyOrder, isIndexLikeKey, serializeJson, cloneLossless } from './json';
