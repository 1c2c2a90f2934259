export { mergePolicy, normalizeRunListItem } from './merge';
export type { ParentPolicy, IncludedPolicy, MergeConflict, MergeResult, Provenance } from './merge';
