export { mergePolicy, normalizeRunListItem, provenanceToJson } from './merge';
export type { ParentPolicy, IncludedPolicy, MergeConflict, MergeResult, Provenance, ProvenanceJson } from './merge';
