/**
 * Issue 48, the dependents feature (one public face, as docs/architecture.md section 4 plans every feature):
 * which policies of a stage include a policy at any depth, rebuilding them on the revision the stage runs
 * (as chef-cli's `chef update` would), and promoting a policy with its dependents in one joint move.
 */
export { listDependents } from './list';
export { rebuildDependents, type RebuildDependentsResult } from './rebuild';
export { promoteWithDependents, type PromoteWithDependentsResult } from './promote';
export type { DependentsDto, RebuildDependentsDto, PromoteWithDependentsDto, JointMoveDto } from '@/lib/types/dependents';
