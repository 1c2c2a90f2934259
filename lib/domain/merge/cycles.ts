import type { IncludedPolicyLockRef, PolicyLock } from '../lock/types';

/** A stored lock by policy name and revision id (the composer loads them first: the engine does no I/O). */
export type IncludeLookup = (policy: string, revisionId: string) => PolicyLock | undefined;

/** How deep nested includes are followed. */
export const MAX_INCLUDE_DEPTH = 20;

/** The policy an include reference names: its `source_options.policy_name` (server includes), else its name. */
export function referencedPolicy(ref: IncludedPolicyLockRef): string {
  const so = ref.source_options ?? {};
  return typeof so.policy_name === 'string' ? so.policy_name : ref.name;
}

export interface IncludeCycle {
  /** The include (by include name) whose lock leads back to the policy. */
  include: string;
  /** Policy names from the composed policy back to itself. */
  trail: string[];
}

/**
 * The one include-cycle rule (used by `mergePolicy`): an include whose lock is
 * the policy itself, or whose included locks lead back to it, followed
 * through `lookup` up to MAX_INCLUDE_DEPTH levels. At most one cycle per
 * include, the shortest found first (a self-include is one cycle, not also
 * its own nested references).
 */
export function findIncludeCycles(policy: string, includes: { name: string; lock: PolicyLock }[], lookup: IncludeLookup = () => undefined): IncludeCycle[] {
  const out: IncludeCycle[] = [];
  for (const inc of includes) {
    // Breadth first: the shortest way back is the one reported.
    let level: { lock: PolicyLock; trail: string[] }[] = [{ lock: inc.lock, trail: [policy, inc.lock.name] }];
    let found: string[] | null = inc.lock.name === policy ? [policy, policy] : null;
    for (let depth = 0; !found && level.length && depth < MAX_INCLUDE_DEPTH; depth++) {
      const next: typeof level = [];
      for (const { lock, trail } of level) {
        for (const ref of lock.included_policy_locks ?? []) {
          const name = referencedPolicy(ref);
          if (name === policy) {
            found = [...trail, name];
            break;
          }
          if (trail.includes(name)) continue; // a loop elsewhere, not through this policy
          const nested = lookup(name, ref.revision_id);
          if (nested) next.push({ lock: nested, trail: [...trail, name] });
        }
        if (found) break;
      }
      level = next;
    }
    if (found) out.push({ include: inc.name, trail: found.length === 2 ? [policy, inc.name, policy] : found });
  }
  return out;
}
