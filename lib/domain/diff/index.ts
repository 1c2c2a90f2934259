export { diffLocks, canonicalLockText, pathText } from './diff';
export type { LockDiff, CookbookChange, CookbookChangeKind, RunListChange, NamedRunListChange, AttributeChange, KeyedChange } from './diff';
export { diffSequence, lcsPairs, type SequenceChange } from './lcs';
