export { mergePolicy, normalizeRunListItem, provenanceToJson, joinRelativePath } from './merge';
export type { ParentPolicy, IncludedPolicy, MergeConflict, MergeWarning, MergeResult, Provenance, ProvenanceJson } from './merge';
