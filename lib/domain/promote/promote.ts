import { computeRevisionId } from '../lock/revision-id';
import { cloneLossless } from '../lock/json';
import type { CookbookLockEntry, PolicyLock } from '../lock/types';
import { jsonEqual, parseConstraint, satisfies } from '@/lib/domain/shared';

/** A dependency constraint the promoted lock would break. */
export interface UnmetConstraint {
  /** Who states the constraint: a cookbook `name (version)`, or `Policyfile`. */
  requiredBy: string;
  /** The cookbook the constraint is on. */
  cookbook: string;
  constraint: string;
  /** The version the lock would hold (null: the cookbook is missing). */
  found: string | null;
  message: string;
}

export type PromoteCookbookResult =
  | {
      ok: true;
      lock: PolicyLock;
      /** True when the target already has exactly this cookbook entry: nothing to do. */
      noop: boolean;
      /** The target's entry before (null: the cookbook is added) and after. */
      before: CookbookLockEntry | null;
      after: CookbookLockEntry;
    }
  | { ok: false; unmet: UnmetConstraint[]; message: string };

type Pair = [string, string];

/** The `name (version)` key of a cookbook's dependency record: the exact version when given, else any. */
function dependencyKey(deps: Record<string, Pair[]>, cookbook: string, version?: string): string | undefined {
  if (version && Object.prototype.hasOwnProperty.call(deps, `${cookbook} (${version})`)) return `${cookbook} (${version})`;
  const prefix = `${cookbook} (`;
  return Object.keys(deps).find((k) => k.startsWith(prefix) && k.endsWith(')'));
}

/**
 * Cookbook promotion (no Chef equivalent): `target`'s lock with `cookbook`'s
 * entry taken from `source` (added if absent), its dependency record carried
 * over, and every constraint re-checked — the promoted cookbook's own
 * dependencies against the target's cookbook set, and every other cookbook's
 * and the Policyfile's constraints on it against the new version. The result
 * gets a fresh chef-cli revision_id.
 */
export function promoteCookbookLock(target: PolicyLock, source: PolicyLock, cookbook: string): PromoteCookbookResult {
  // Own keys only: 'toString' or '__proto__' must not find Object.prototype's members (issue 17, item 20).
  const own = (locks: Record<string, CookbookLockEntry> | undefined, name: string) => (locks && Object.hasOwn(locks, name) ? locks[name] : undefined);
  const incoming = own(source.cookbook_locks, cookbook);
  if (!incoming) {
    return { ok: false, unmet: [], message: `Cookbook '${cookbook}' is not in the source lock (${source.name} ${source.revision_id.slice(0, 10)})` };
  }
  const before = own(target.cookbook_locks, cookbook) ?? null;
  if (before && jsonEqual(before, incoming)) {
    return { ok: true, lock: target, noop: true, before, after: before };
  }

  const lock: PolicyLock = cloneLossless(target);
  lock.cookbook_locks = { ...lock.cookbook_locks, [cookbook]: cloneLossless(incoming) };

  const srcDeps = (source.solution_dependencies?.dependencies ?? {}) as Record<string, Pair[]>;
  const tgtDeps = { ...((lock.solution_dependencies?.dependencies ?? {}) as Record<string, Pair[]>) };
  const oldKey = dependencyKey(tgtDeps, cookbook, before?.version);
  if (oldKey) delete tgtDeps[oldKey];
  const srcKey = dependencyKey(srcDeps, cookbook, incoming.version);
  const ownDeps: Pair[] = srcKey ? cloneLossless(srcDeps[srcKey]) : [];
  tgtDeps[`${cookbook} (${incoming.version})`] = ownDeps;

  const policyfile = [...((lock.solution_dependencies?.Policyfile ?? []) as Pair[])];
  if (!policyfile.some(([n]) => n === cookbook)) {
    const fromSource = ((source.solution_dependencies?.Policyfile ?? []) as Pair[]).find(([n]) => n === cookbook);
    if (fromSource) policyfile.push([...fromSource] as Pair);
  }
  if (lock.solution_dependencies || Object.keys(tgtDeps).length || policyfile.length) {
    lock.solution_dependencies = { ...(lock.solution_dependencies ?? {}), Policyfile: policyfile, dependencies: tgtDeps };
  }

  const unmet: UnmetConstraint[] = [];
  const versionOf = (name: string) => (Object.hasOwn(lock.cookbook_locks, name) ? lock.cookbook_locks[name].version : null);
  const check = (requiredBy: string, name: string, constraint: string) => {
    const found = versionOf(name);
    if (found !== null && satisfies(found, constraint)) return;
    const malformed = parseConstraint(constraint) === null;
    unmet.push({
      requiredBy,
      cookbook: name,
      constraint,
      found,
      message: malformed
        ? `${requiredBy} has a constraint on ${name} that cannot be read: '${constraint}'`
        : found === null
          ? `${requiredBy} needs ${name} ${constraint}, but the lock would have no ${name}`
          : `${requiredBy} needs ${name} ${constraint}, but the lock would have ${name} ${found}`,
    });
  };
  // The promoted cookbook's own dependencies, against the target's cookbook set.
  for (const [dep, c] of ownDeps) check(`${cookbook} (${incoming.version})`, dep, c);
  // Everyone else's constraints on the promoted cookbook.
  for (const [key, deps] of Object.entries(tgtDeps)) {
    if (key.startsWith(`${cookbook} (`)) continue;
    for (const [dep, c] of deps ?? []) if (dep === cookbook) check(key, dep, c);
  }
  for (const [name, c] of policyfile) if (name === cookbook) check('Policyfile', name, c);

  if (unmet.length) {
    return { ok: false, unmet, message: `Promoting ${cookbook} ${incoming.version} would break ${unmet.length} dependency constraint${unmet.length === 1 ? '' : 's'}` };
  }
  lock.revision_id = computeRevisionId(lock);
  return { ok: true, lock, noop: false, before, after: incoming };
}
