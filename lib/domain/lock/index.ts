export * from './types';
export { validateLock, NAME_PATTERN, COOKBOOK_NAME_PATTERN, RUN_LIST_ITEM_PATTERN, VERSION_PATTERN } from './validate';
export { computeRevisionId, revisionIdText } from './revision-id';
export { canonicalJson, formatG15, compareCodePoints } from './canonical';
export { JsonNumber, jsonDepth, parseLossless, pointer, defineKey, KEY_ORDER, orderedKeys, setKeyOrder, isIndexLikeKey, serializeJson, cloneLossless } from './json';
export { stableJson } from './stable';
