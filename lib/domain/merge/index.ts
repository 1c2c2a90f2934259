export { mergePolicy, normalizeRunListItem, provenanceToJson, joinRelativePath } from './merge';
export { findIncludeCycles, referencedPolicy, MAX_INCLUDE_DEPTH } from './cycles';
export type { IncludeLookup, IncludeCycle } from './cycles';
export type { MergeOptions, ParentPolicy, IncludedPolicy, MergeConflict, MergeWarning, MergeResult, Provenance, ProvenanceJson } from './merge';
export { asFetchedFromServer, chefServerOf, dottedDecimalIdentifier, includeFor, ownPart, rebuildDependent } from './rebuild';
export type { KeptDuplicates, OwnPart, RebuildInput, RebuildResult } from './rebuild';
export { carriedPaths, missingIncludes, olderDependentCounts, rebuildOrder, stageDependents } from './dependents';
export type { CarriedInclude, IncludesLookup, RevisionIncludes, StageDependent } from './dependents';
export { DEPENDENTS_EVENT_NAMES } from './events';
