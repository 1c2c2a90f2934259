/**
 * The console's side of the differential comparison, pure (no database, no chef): given a case and
 * chef-cli's outcomes, recompute every revision id from chef-cli's lock texts, run the console's merge
 * on the same inputs and compare it field by field with chef-cli's lock, or refusal with refusal.
 * Used by the live suite (test/chef/differential.chef.test.ts) and by the recorded corpus
 * (test/chef-cli-corpus.test.ts).
 */
import {
  canonicalJson,
  cloneLossless,
  computeRevisionId,
  mergePolicy,
  orderedKeys,
  parseLossless,
  setKeyOrder,
  type CookbookLockEntry,
  type IncludedPolicy,
  type MergeResult,
  type ParentPolicy,
  type PolicyLock,
} from '@/lib/domain';
import { rubyEq } from '@/lib/domain/merge/ruby-values';
import { cookbookIdentifier, type ChefOutcomes, type DiffCase, type PolicySpec } from './model';

const uniq = (xs: string[]) => [...new Set(xs)];

/** A constraint as chef-cli writes it (Semverse::Constraint#to_s): `>= 1.0` → `>= 1.0.0`, `~> 1.2` kept, `1.0` → `= 1.0.0`. */
export function semverseConstraint(text: string): string {
  const m = /^\s*(~>|>=|<=|!=|=|>|<)?\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(text);
  if (!m) return text;
  const op = m[1] ?? '=';
  if (op === '~>') return `${op} ${m[2]}${m[3] !== undefined ? '.' + m[3] : ''}${m[4] !== undefined ? '.' + m[4] : ''}`;
  return `${op} ${m[2]}.${m[3] ?? 0}.${m[4] ?? 0}`;
}

/** The console's parent for a Policyfile: its own run lists as written, its path cookbooks locked, its attributes. */
export function parentFromSpec(c: DiffCase, p: PolicySpec): ParentPolicy {
  const cookbook_locks: Record<string, CookbookLockEntry> = {};
  const policyfile: [string, string][] = [];
  const dependencies: Record<string, [string, string][]> = {};
  for (const ref of p.cookbooks) {
    const cb = c.cookbooks.find((x) => ref.path.endsWith(`cookbooks/${x.dir}`))!;
    const ids = cookbookIdentifier(cb);
    cookbook_locks[ref.name] = { version: cb.version, identifier: ids.identifier, dotted_decimal_identifier: ids.dotted_decimal_identifier, source: ref.path, cache_key: null, scm_info: null, source_options: { path: ref.path } };
    policyfile.push([ref.name, semverseConstraint(ref.constraint ?? '>= 0.0.0')]);
    dependencies[`${cb.name} (${cb.version})`] = cb.deps.map(([d, k]) => [d, semverseConstraint(k)]);
  }
  return {
    name: p.name,
    run_list: p.runList,
    named_run_lists: setKeyOrder(Object.fromEntries(p.named), p.named.map(([k]) => k)),
    cookbook_locks,
    default_attributes: p.default,
    override_attributes: p.override,
    solution_dependencies: { Policyfile: policyfile, dependencies },
  };
}

/** The includes as the console receives them: chef-cli's lock of each included policy, under its include name and path. */
export function includesFromChef(p: PolicySpec, outcomes: ChefOutcomes): IncludedPolicy[] | null {
  const out: IncludedPolicy[] = [];
  for (const inc of p.includes) {
    const text = outcomes[inc.dir]?.lock;
    if (!text) return null;
    out.push({ name: inc.name, source_options: { path: inc.path }, lock: parseLossless(text) as PolicyLock });
  }
  return out;
}

/**
 * chef-cli's lock as the console should produce it: run lists de-duplicated after normalising (the
 * console's documented difference; chef-cli keeps `recipe[x::default]` twice when it came as `x` and
 * `recipe[x]`), and the revision id recomputed for those lists.
 */
export function expectedFromChef(text: string): { lock: PolicyLock; deduped: boolean } {
  const lock = cloneLossless(parseLossless(text)) as PolicyLock;
  let deduped = false;
  const u = uniq(lock.run_list);
  if (u.length !== lock.run_list.length) deduped = true;
  lock.run_list = u;
  if (lock.named_run_lists) {
    for (const k of orderedKeys(lock.named_run_lists)) {
      const v = uniq(lock.named_run_lists[k]);
      if (v.length !== lock.named_run_lists[k].length) deduped = true;
      lock.named_run_lists[k] = v;
    }
  }
  lock.revision_id = computeRevisionId(lock);
  return { lock, deduped };
}

const show = (v: unknown) => {
  try {
    return canonicalJson(v);
  } catch {
    return String(v);
  }
};

/** Field-by-field differences between the console's lock and chef-cli's (expected) lock. */
export function compareLocks(ours: PolicyLock, chef: PolicyLock, chefRevisionId: string, deduped: boolean): string[] {
  const problems: string[] = [];
  const eq = (what: string, a: unknown, b: unknown) => {
    if (!rubyEq(a, b) || show(a) !== show(b)) problems.push(`${what}: console ${show(a)}\n    chef-cli ${show(b)}`);
  };
  eq('run_list', ours.run_list, chef.run_list);
  const on = ours.named_run_lists ?? {};
  const cn = chef.named_run_lists ?? {};
  eq('named_run_lists key order', orderedKeys(on), orderedKeys(cn));
  for (const k of orderedKeys(cn)) eq(`named_run_lists[${k}]`, on[k], cn[k]);
  eq('cookbook names', Object.keys(ours.cookbook_locks).sort(), Object.keys(chef.cookbook_locks).sort());
  for (const [name, entry] of Object.entries(chef.cookbook_locks)) {
    const mine = ours.cookbook_locks[name];
    if (mine) eq(`cookbook_locks[${name}]`, mine, entry);
  }
  if (canonicalJson(ours.default_attributes ?? {}) !== canonicalJson(chef.default_attributes ?? {})) problems.push(`default_attributes (canonical): console ${canonicalJson(ours.default_attributes ?? {})}\n    chef-cli ${canonicalJson(chef.default_attributes ?? {})}`);
  if (canonicalJson(ours.override_attributes ?? {}) !== canonicalJson(chef.override_attributes ?? {})) problems.push(`override_attributes (canonical): console ${canonicalJson(ours.override_attributes ?? {})}\n    chef-cli ${canonicalJson(chef.override_attributes ?? {})}`);
  eq('included_policy_locks', ours.included_policy_locks ?? [], chef.included_policy_locks ?? []);
  eq('solution_dependencies', ours.solution_dependencies, chef.solution_dependencies);
  if (ours.revision_id !== chef.revision_id) problems.push(`revision_id: console ${ours.revision_id}, expected ${chef.revision_id}${deduped ? ' (chef-cli lists de-duplicated)' : ''}`);
  if (!deduped && ours.revision_id !== chefRevisionId) problems.push(`revision_id: console ${ours.revision_id}, chef-cli ${chefRevisionId}`);
  return problems;
}

export interface PolicyCheck {
  policy: string;
  chefOk: boolean;
  consoleOk: boolean | null;
  merge: MergeResult | null;
  problems: string[];
}

/** Checks one Policyfile of a case: revision id from chef-cli's text, then the console's merge against chef-cli. */
export function checkPolicy(c: DiffCase, p: PolicySpec, outcomes: ChefOutcomes): PolicyCheck {
  const out = outcomes[p.dir];
  const problems: string[] = [];
  const check: PolicyCheck = { policy: p.name, chefOk: !!out?.lock, consoleOk: null, merge: null, problems };
  if (!out) {
    problems.push(`no chef-cli outcome recorded for ${p.dir}`);
    return check;
  }
  if (out.lock) {
    const chefId = (parseLossless(out.lock) as PolicyLock).revision_id;
    const fromText = computeRevisionId(out.lock);
    if (fromText !== chefId) problems.push(`revision id from chef-cli's text: console ${fromText}, chef-cli ${chefId}`);
  }
  const includes = includesFromChef(p, outcomes);
  if (!includes) return check; // an include failed in chef-cli: nothing to merge
  const merged = mergePolicy(parentFromSpec(c, p), includes);
  check.merge = merged;
  check.consoleOk = merged.ok;
  if (out.lock && merged.ok) {
    const expected = expectedFromChef(out.lock);
    problems.push(...compareLocks(merged.lock, expected.lock, (parseLossless(out.lock) as PolicyLock).revision_id, expected.deduped));
  } else if (out.lock && !merged.ok) {
    problems.push(`chef-cli accepted, the console refused: ${merged.conflicts.map((x) => x.message).join(' | ')}`);
  } else if (!out.lock && merged.ok) {
    problems.push(`chef-cli refused (${firstLine(out.error)}), the console accepted (revision ${merged.lock.revision_id})`);
  }
  return check;
}

export const firstLine = (e: string | null) => (e ?? '').split('\n').find((l) => l.startsWith('Reason:')) ?? (e ?? '').split('\n')[0];

export function checkCase(c: DiffCase, outcomes: ChefOutcomes): PolicyCheck[] {
  return c.policies.map((p) => checkPolicy(c, p, outcomes));
}
