export { mergePolicy, normalizeRunListItem, provenanceToJson, joinRelativePath } from './merge';
export { findIncludeCycles, referencedPolicy, MAX_INCLUDE_DEPTH } from './cycles';
export type { IncludeLookup, IncludeCycle } from './cycles';
export type { MergeOptions, ParentPolicy, IncludedPolicy, MergeConflict, MergeWarning, MergeResult, Provenance, ProvenanceJson } from './merge';
