/**
 * Issue 48: a dependent of an included policy rebuilt as chef-cli 5.6.24 rebuilds it when the include
 * moved, and nothing else: "the include re-resolved, nothing else re-solved".
 *
 * What chef-cli does (read in its sources, checked with the real tool by test/chef/dependents.chef.test.ts):
 * - `chef update` (no cookbook names) and `chef install` without a lock both run
 *   `generate_lock_and_install`; `prepare_constraints_for_policies` (policyfile_services/install.rb) calls
 *   `LockApplier#with_unlocked_policies(:all)`, so every `include_policy` is fetched again from its source:
 *   `server:` + `policy_group:` fetches `GET policy_groups/<group>/policies/<name>` (what the stage runs now),
 *   `server:` + `policy_revision_id:` fetches that same revision again (a pin stays a pin).
 * - `ChefServerLockFetcher#lock_data` rewrites every cookbook of a server-fetched lock to
 *   `{ chef_server_artifact: <server>, identifier }`; the lock chef-cli writes for such a cookbook is a
 *   CachedCookbook (`cookbook_locks.rb`): version, identifier, dotted_decimal_identifier, cache_key
 *   `<name>-<identifier>`, origin `<server>` and those source options. The include is recorded as
 *   `{ name, revision_id, source_options: <as written> + policy_revision_id }`.
 * - The dependent's own cookbooks come from the Policyfile: path cookbooks are read again (fixed versions),
 *   so with its own cookbooks unchanged nothing else is solved again.
 * - `chef update Policyfile.rb base` is not the tool: chef-cli reads `base` as a cookbook name
 *   (`SolutionDependencies#transitive_deps`: NoMethodError when no cookbook is called `base`), and pins
 *   every cookbook of the old lock, the include's too, so a moved include whose cookbooks changed fails.
 *
 * The console keeps no Policyfile.rb, so it takes the dependent's own part from where it is known:
 * a revision the console composed or rebuilt keeps it (origin detail, exact); a lock chef-cli built is
 * taken apart here (`ownPart`): whatever its includes did not bring is its own. That reading assumes the
 * Policyfile does not repeat what an include brings; a taken-apart lock is merged again with the includes
 * it was built with and must give back the same lock, or the dependent is not rebuilt (`problems`).
 * Pure: no I/O.
 */
import { computeRevisionId } from '../lock/revision-id';
import { orderedKeys, setKeyOrder } from '../lock/json';
import { diffLocks, type LockDiff } from '../diff/diff';
import type { CookbookLockEntry, IncludedPolicyLockRef, PolicyLock, SolutionDependencies } from '../lock/types';
import { mergePolicy, rebaseCookbook, type IncludedPolicy, type MergeConflict, type MergeOptions, type MergeWarning, type ParentPolicy, type Provenance } from './merge';
import { isObject, rubyEq, rubyUnion } from './ruby-values';

/** The Chef server URL an include was fetched from by chef-cli (`server:` as an http(s) URL), else null. */
export function chefServerOf(sourceOptions: Record<string, unknown> | undefined): string | null {
  const s = sourceOptions?.server;
  return typeof s === 'string' && /^https?:\/\//i.test(s) ? s : null;
}

/** chef-cli's dotted decimal form of a 40-hex identifier (`CookbookProfiler::Identifiers#dotted_decimal_identifier`). */
export function dottedDecimalIdentifier(identifier: string): string | null {
  if (!/^[0-9a-f]{40}$/.test(identifier)) return null;
  return [identifier.slice(0, 14), identifier.slice(14, 28), identifier.slice(28)].map((h) => BigInt('0x' + h).toString()).join('.');
}

/**
 * A lock as chef-cli sees it after fetching it from a Chef server: each cookbook becomes the CachedCookbook
 * chef-cli writes for a `chef_server_artifact` source (see the file comment). Other fields are kept.
 */
export function asFetchedFromServer(lock: PolicyLock, server: string): PolicyLock {
  const cookbook_locks: Record<string, CookbookLockEntry> = {};
  for (const name of Object.keys(lock.cookbook_locks ?? {})) {
    const e = lock.cookbook_locks[name];
    const identifier = e.identifier;
    const entry: CookbookLockEntry = {
      version: e.version,
      identifier,
      dotted_decimal_identifier: dottedDecimalIdentifier(identifier) ?? e.dotted_decimal_identifier,
      cache_key: `${name}-${identifier}`,
      origin: server,
      source_options: { chef_server_artifact: server, identifier },
    };
    if (entry.dotted_decimal_identifier === undefined) delete entry.dotted_decimal_identifier;
    Object.defineProperty(cookbook_locks, name, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  return { ...lock, cookbook_locks };
}

/** An include as a dependent's merge takes it: under its include name and source, server-fetched when chef-cli fetched it. */
export function includeFor(ref: Pick<IncludedPolicyLockRef, 'name' | 'source_options'>, lock: PolicyLock): IncludedPolicy {
  const server = chefServerOf(ref.source_options);
  return { name: ref.name, source_options: ref.source_options ?? {}, lock: server ? asFetchedFromServer(lock, server) : lock };
}

/** Items in order, each once. */
function dedupe(lists: string[][]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const l of lists) for (const x of l) if (!seen.has(x)) (seen.add(x), out.push(x));
  return out;
}

const startsWith = (list: string[], prefix: string[]) => prefix.length <= list.length && prefix.every((x, i) => list[i] === x);

/** Run-list items a chef-cli lock lists twice (its Policyfile spelled `x` where an include has `recipe[x::default]`): kept as chef-cli keeps them. */
export interface KeptDuplicates {
  runList: string[];
  named: Record<string, string[]>;
}

export interface OwnPart {
  parent: ParentPolicy;
  /** Only for a taken-apart chef-cli lock (`ownPart`): run-list items of its own it lists again after an include's. */
  duplicates?: KeptDuplicates;
}

/** `tree` without what the includes' trees bring (the same value at the same path); subtrees left empty go. */
function stripProvided(tree: Record<string, unknown>, provided: Record<string, unknown>[]): Record<string, unknown> {
  const keys: string[] = [];
  const out: Record<string, unknown> = {};
  for (const k of orderedKeys(tree)) {
    const v = tree[k];
    const theirs = provided.filter((p) => Object.prototype.hasOwnProperty.call(p, k)).map((p) => p[k]);
    let keep: unknown = v;
    if (theirs.length) {
      if (isObject(v)) {
        const objects = theirs.filter(isObject) as Record<string, unknown>[];
        if (objects.length) {
          const rest = stripProvided(v, objects);
          keep = Object.keys(rest).length ? rest : undefined;
        }
      } else if (theirs.some((t) => rubyEq(t, v))) keep = undefined;
      else if (Array.isArray(v) && theirs.length > 1 && theirs.every(Array.isArray)) {
        // Several includes set the same array: chef-cli's DeepMerge unions each later one into the first (Ruby `|`:
        // [x, x] | [x, x] is [x]), so the lock holds their union, which no include holds alone (a diamond).
        const union = (theirs as unknown[][]).slice(1).reduce<unknown[]>((acc, t) => rubyUnion(acc, t), theirs[0] as unknown[]);
        if (rubyEq(union, v)) keep = undefined;
      }
    }
    if (keep !== undefined) {
      keys.push(k);
      Object.defineProperty(out, k, { value: keep, enumerable: true, writable: true, configurable: true });
    }
  }
  return setKeyOrder(out, keys);
}

/** Two cookbook entries that say the same thing (version, identifier, source options). */
const sameEntry = (a: CookbookLockEntry, b: CookbookLockEntry) => a.version === b.version && a.identifier === b.identifier && rubyEq(a.source_options ?? null, b.source_options ?? null);

/**
 * The dependent's own part of a merged lock (its Policyfile as far as the lock tells): run lists after the
 * includes' items, named run lists likewise, the cookbooks no include brought (compared as the merge carried
 * them: server-fetched, path rebased), their constraints and dependencies, and the attribute leaves no
 * include set to the same value. `includes` are the includes the lock was merged with, in its order.
 */
export function ownPart(lock: PolicyLock, includes: IncludedPolicy[]): { ok: true; own: OwnPart } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const incRun = dedupe(includes.map((i) => i.lock.run_list ?? []));
  if (!startsWith(lock.run_list ?? [], incRun)) problems.push(`its run list does not begin with its includes' items (${incRun.join(', ') || 'none'})`);
  const runList = (lock.run_list ?? []).slice(incRun.length);
  const incRunSet = new Set(incRun);
  const duplicates: KeptDuplicates = { runList: runList.filter((x) => incRunSet.has(x)), named: {} };

  const named: Record<string, string[]> = {};
  const namedKeys: string[] = [];
  const lockNamed = lock.named_run_lists ?? {};
  for (const key of orderedKeys(lockNamed)) {
    const providers = includes.filter((i) => i.lock.named_run_lists && Object.prototype.hasOwnProperty.call(i.lock.named_run_lists, key));
    const items = lockNamed[key] ?? [];
    const theirs = dedupe(providers.map((i) => i.lock.named_run_lists![key]));
    if (!startsWith(items, theirs)) problems.push(`its named run list '${key}' does not begin with its includes' items`);
    const mine = items.slice(theirs.length);
    if (!providers.length || mine.length) {
      namedKeys.push(key);
      Object.defineProperty(named, key, { value: mine, enumerable: true, writable: true, configurable: true });
      const theirSet = new Set(theirs);
      const dups = mine.filter((x) => theirSet.has(x));
      if (dups.length) duplicates.named[key] = dups;
    }
  }
  for (const i of includes) {
    for (const key of orderedKeys(i.lock.named_run_lists ?? {})) if (!Object.prototype.hasOwnProperty.call(lockNamed, key)) problems.push(`include '${i.name}' has a named run list '${key}' the lock lacks`);
  }
  setKeyOrder(named, namedKeys);

  const cookbook_locks: Record<string, CookbookLockEntry> = {};
  for (const [cb, entry] of Object.entries(lock.cookbook_locks ?? {})) {
    const from = includes.find((i) => i.lock.cookbook_locks && Object.prototype.hasOwnProperty.call(i.lock.cookbook_locks, cb));
    const carried = from ? rebaseCookbook(from.lock.cookbook_locks[cb], from.source_options?.path) : null;
    if (carried && sameEntry(carried, entry)) continue;
    Object.defineProperty(cookbook_locks, cb, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  const own = new Set(Object.keys(cookbook_locks));
  const locked = new Set(Object.keys(lock.cookbook_locks ?? {}));
  const sd = lock.solution_dependencies;
  const solution_dependencies: SolutionDependencies = {
    Policyfile: (sd?.Policyfile ?? []).filter(([n]) => own.has(n) || !locked.has(n)),
    dependencies: Object.fromEntries([...own].map((cb) => [`${cb} (${cookbook_locks[cb].version})`, sd?.dependencies?.[`${cb} (${cookbook_locks[cb].version})`] ?? []])),
  };

  const attrs = (field: 'default_attributes' | 'override_attributes') => stripProvided(lock[field] ?? {}, includes.map((i) => i.lock[field] ?? {}));
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    own: {
      parent: {
        name: lock.name,
        run_list: runList,
        ...(namedKeys.length ? { named_run_lists: named } : {}),
        cookbook_locks,
        default_attributes: attrs('default_attributes'),
        override_attributes: attrs('override_attributes'),
        solution_dependencies,
      },
      duplicates: duplicates.runList.length || Object.keys(duplicates.named).length ? duplicates : undefined,
    },
  };
}

/** Puts back the run-list items chef-cli lists twice (KeptDuplicates) where the console's merge listed them once; recomputes the id. */
function keepDuplicates(lock: PolicyLock, own: ParentPolicy, dups: KeptDuplicates | undefined, includes: IncludedPolicy[]): PolicyLock {
  if (!dups) return lock;
  const redo = (incLists: string[][], mine: string[], keep: string[]) => {
    const theirs = dedupe(incLists);
    const theirSet = new Set(theirs);
    const keepSet = new Set(keep);
    return [...theirs, ...dedupe([mine.filter((x) => !theirSet.has(x) || keepSet.has(x))])];
  };
  const out: PolicyLock = { ...lock, run_list: redo(includes.map((i) => i.lock.run_list ?? []), own.run_list, dups.runList) };
  if (lock.named_run_lists && Object.keys(dups.named).length) {
    const named: Record<string, string[]> = {};
    const keys = orderedKeys(lock.named_run_lists);
    for (const k of keys) {
      const v = dups.named[k] ? redo(includes.filter((i) => i.lock.named_run_lists?.[k]).map((i) => i.lock.named_run_lists![k]), own.named_run_lists?.[k] ?? [], dups.named[k]) : lock.named_run_lists[k];
      Object.defineProperty(named, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    out.named_run_lists = setKeyOrder(named, keys);
  }
  out.revision_id = computeRevisionId(out);
  return out;
}

/** What two locks differ in for a rebuild's self-check (content chef-cli writes; key order and formatting aside). */
function lockMismatch(a: PolicyLock, b: PolicyLock): string[] {
  const out: string[] = [];
  if (computeRevisionId(a) !== computeRevisionId(b)) out.push('revision id');
  if (!rubyEq(a.cookbook_locks ?? {}, b.cookbook_locks ?? {})) out.push('cookbook locks');
  if (!rubyEq(a.solution_dependencies ?? null, b.solution_dependencies ?? null)) out.push('solution dependencies');
  return out;
}

export interface RebuildInput {
  /** The dependent's current lock. */
  lock: PolicyLock;
  /** Its own part when the console knows it exactly (a revision it composed or rebuilt); else taken apart from `lock`. */
  own?: ParentPolicy;
  /** The includes `lock` was merged with (each as `includeFor` makes it), in its order. */
  carried: IncludedPolicy[];
  /** For each include: what it becomes (null: kept as carried). */
  next: (IncludedPolicy | null)[];
  /** Stored locks for the include-cycle check (mergePolicy). */
  lookup?: MergeOptions['lookup'];
}

export type RebuildResult =
  | { ok: true; lock: PolicyLock; own: ParentPolicy; diff: LockDiff; provenance: Provenance; warnings: MergeWarning[]; unchanged: boolean }
  | { ok: false; kind: 'conflict'; conflicts: MergeConflict[]; warnings: MergeWarning[] }
  | { ok: false; kind: 'unreadable'; problems: string[] };

/**
 * A dependent with some includes moved (`next`), everything else as it was: its own part merged again with the
 * includes (chef-cli's `chef update` with `include_policy … policy_group:` sources, see the file comment).
 * Conflicts (its own pin against an include's, two includes disagreeing, a cycle) are the merge's, as compose
 * reports them; nothing is built then.
 */
export function rebuildDependent(input: RebuildInput): RebuildResult {
  const { lock, carried } = input;
  let own: OwnPart;
  if (input.own) own = { parent: input.own };
  else {
    const taken = ownPart(lock, carried);
    if (!taken.ok) return { ok: false, kind: 'unreadable', problems: taken.problems };
    own = taken.own;
  }
  // The self-check: the own part and the carried includes must give back the lock as it is.
  const again = mergePolicy(own.parent, carried);
  if (!again.ok) return { ok: false, kind: 'unreadable', problems: [`its own part and its includes no longer merge: ${again.conflicts[0].message}`] };
  const mismatch = lockMismatch(keepDuplicates(again.lock, own.parent, own.duplicates, carried), lock);
  if (mismatch.length) return { ok: false, kind: 'unreadable', problems: [`merging its own part with its includes again does not give back its lock (${mismatch.join(', ')} differ)`] };

  const includes = carried.map((c, i) => input.next[i] ?? c);
  const merged = mergePolicy(own.parent, includes, { lookup: input.lookup });
  if (!merged.ok) return { ok: false, kind: 'conflict', conflicts: merged.conflicts, warnings: merged.warnings };
  const rebuilt = keepDuplicates(merged.lock, own.parent, own.duplicates, includes);
  const diff = diffLocks(lock, rebuilt);
  return { ok: true, lock: rebuilt, own: own.parent, diff, provenance: merged.provenance, warnings: merged.warnings, unchanged: rebuilt.revision_id === lock.revision_id };
}
