import { satisfies } from '@/lib/domain/shared';
import { defineKey, orderedKeys, pointer, setKeyOrder } from '../lock/json';
import { jsonPointer } from '@/lib/domain/shared/json-pointer';
import { computeRevisionId } from '../lock/revision-id';
import { isObject, rubyEq, rubyUnion } from './ruby-values';
import { findIncludeCycles, type IncludeLookup } from './cycles';
import { OriginLog } from './origins';
import type { CookbookLockEntry, IncludedPolicyLockRef, PolicyLock, SolutionDependencies } from '../lock/types';

/** The policy being composed: its own run list (Policyfile.rb shorthand allowed), cookbooks and attributes. */
export interface ParentPolicy {
  name: string;
  run_list: string[];
  named_run_lists?: Record<string, string[]>;
  cookbook_locks?: Record<string, CookbookLockEntry>;
  default_attributes?: Record<string, unknown>;
  override_attributes?: Record<string, unknown>;
  solution_dependencies?: SolutionDependencies;
}

/** One include: a lock (already merged itself), under a unique include name, with where it came from. */
export interface IncludedPolicy {
  name: string;
  source_options: Record<string, unknown>;
  lock: PolicyLock;
}

export interface MergeConflict {
  kind:
    | 'attribute'
    | 'cookbook_version'
    | 'cookbook_identifier'
    | 'cookbook_source'
    | 'cookbook_dependencies'
    | 'unsatisfied_constraint'
    | 'missing_cookbook'
    | 'dependency_cycle'
    | 'invalid_run_list_item'
    | 'duplicate_include'
    | 'include_cycle';
  /** For run-list problems: a JSON pointer into the parent input (`/run_list/2`, `/named_run_lists/web/0`). */
  field?: string;
  /** chef-cli style `[a][b]` for attributes. */
  path?: string;
  /** Attributes: an RFC 6901 pointer into the composed lock (`/default_attributes/a~1b/c`). */
  pointer?: string;
  precedence?: 'default' | 'override';
  cookbook?: string;
  /** Include names; the parent by its policy name. */
  sources: string[];
  values?: unknown[];
  message: string;
}

/**
 * Which source contributed each run-list item, cookbook and attribute node
 * (keyed by chef-cli style path `[a][b]`). Maps, because they are built at the
 * rate of tens of thousands of entries; `provenanceToJson` gives plain objects.
 */
export interface Provenance {
  runList: Map<string, string>;
  namedRunLists: Map<string, Map<string, string>>;
  cookbooks: Map<string, string>;
  /**
   * [path, source] for every attribute node, in merge order (an array: no hashing of tens of thousands
   * of paths). Listed when first read: the merge records whole subtrees (merge/origins.ts).
   */
  attributes: { readonly default: [string, string][]; readonly override: [string, string][] };
}

export interface ProvenanceJson {
  runList: Record<string, string>;
  namedRunLists: Record<string, Record<string, string>>;
  cookbooks: Record<string, string>;
  attributes: { default: Record<string, string>; override: Record<string, string> };
}

const mapToObject = (m: Map<string, string>) => {
  const out: Record<string, string> = {};
  for (const [k, v] of m) setKey(out, k, v);
  return out;
};

/** The origin logs behind a merge's `provenance.attributes`. */
const originLogs = new WeakMap<Provenance['attributes'], { default: OriginLog; override: OriginLog }>();

/** `attributes` for a Provenance: the pairs listed from the logs on first read. */
function lazyAttributes(logs: { default: OriginLog; override: OriginLog }): Provenance['attributes'] {
  let def: [string, string][] | undefined;
  let over: [string, string][] | undefined;
  const attributes = {
    get default() {
      return (def ??= logs.default.toArray());
    },
    get override() {
      return (over ??= logs.override.toArray());
    },
  };
  originLogs.set(attributes, logs);
  return attributes;
}

/** path → source, the last source to set a path winning (as a Map built from the pairs keeps it). */
function originsToObject(attributes: Provenance['attributes'], which: 'default' | 'override'): Record<string, string> {
  const log = originLogs.get(attributes)?.[which];
  if (!log) return mapToObject(new Map(attributes[which]));
  const out: Record<string, string> = {};
  log.forEach((path, source) => setKey(out, path, source));
  return out;
}

/** Provenance as plain objects (for JSON). */
export function provenanceToJson(p: Provenance): ProvenanceJson {
  const named: Record<string, Record<string, string>> = {};
  for (const [k, m] of p.namedRunLists) setKey(named, k, mapToObject(m));
  return {
    runList: mapToObject(p.runList),
    namedRunLists: named,
    cookbooks: mapToObject(p.cookbooks),
    attributes: { default: originsToObject(p.attributes, 'default'), override: originsToObject(p.attributes, 'override') },
  };
}

/** Accepted, as chef-cli accepts it, but worth telling the user (the parent's own cookbook replacing an include's). */
export interface MergeWarning {
  kind: 'parent_cookbook_wins' | 'moot_include_conflict';
  cookbook: string;
  /** The parent first, then the include whose entry it replaced. */
  sources: string[];
  values: unknown[];
  message: string;
}

export type MergeResult = { ok: true; lock: PolicyLock; provenance: Provenance; warnings: MergeWarning[] } | { ok: false; conflicts: MergeConflict[]; warnings: MergeWarning[] };

const RECIPE_ITEM = /^recipe\[([^\]@]+)(@([0-9]+(\.[0-9]+){1,2}))?\]$/;
const ROLE_ITEM = /^role\[([^\]]+)\]$/;
const VERSIONED_ITEM = /^([^@]+)(@([0-9]+(\.[0-9]+){1,2}))$/;
const FALSE_FRIEND = /[[\]]/;
const COMPONENT = /^[.\p{L}\p{N}_-]+$/u;

/**
 * A Policyfile.rb run-list item in a lock's form, as chef-cli makes it (`Chef::RunList::RunListItem`,
 * then `normalize_recipe`): `nginx` and `nginx@1.0` → `recipe[nginx::default]`, `nginx::repo` →
 * `recipe[nginx::repo]`, `recipe[nginx@1.0.0]` → `recipe[nginx::default]` (the version is dropped),
 * and `role[x]` → `recipe[x::default]` (chef-cli has no roles in policies and reads the name as a
 * cookbook). Throws RangeError, with chef-cli's reason, for what chef-cli refuses (`Recipe[x]`, `x::`).
 */
export function normalizeRunListItem(item: string): string {
  const s = item.trim();
  let name: string;
  let m: RegExpExecArray | null;
  if ((m = RECIPE_ITEM.exec(s))) name = m[1];
  else if ((m = ROLE_ITEM.exec(s))) name = m[1];
  else if ((m = VERSIONED_ITEM.exec(s))) name = m[1];
  else if (FALSE_FRIEND.test(s)) throw new RangeError(`run-list item '${item}' must be recipe[NAME] or role[NAME]`);
  else name = s;
  const sep = name.indexOf('::');
  const cookbook = sep < 0 ? name : name.slice(0, sep);
  const recipe = sep < 0 ? null : name.slice(sep + 2);
  if (!COMPONENT.test(cookbook)) throw new RangeError(`run-list item '${item}' has an invalid cookbook name '${cookbook}'`);
  if (recipe !== null && !COMPONENT.test(recipe)) throw new RangeError(`run-list item '${item}' has an invalid recipe name '${recipe}'`);
  return `recipe[${recipe === null ? `${name}::default` : name}]`;
}

const cookbookOf = (item: string) => /^recipe\[([^:\]]+)/.exec(item)?.[1] ?? item;

/** Sets an own property; only `__proto__` needs defineProperty (plain assignment is much faster). */
function setKey(target: Record<string, unknown>, key: string, value: unknown) {
  if (key === '__proto__') defineKey(target, key, value);
  else target[key] = value;
}

type AttrSource = { name: string; tree: Record<string, unknown> };
/** A node of the checker's tree: a leaf (first value and who set it) or an object, expanded lazily. */
type CheckNode = { hash: true; source: string; value: Record<string, unknown>; children: Map<string, CheckNode> | null } | { hash: false; source: string; value: unknown };

const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** The children of an object node; a subtree only one source brought is expanded when a second source reaches it. */
function childrenOf(node: Extract<CheckNode, { hash: true }>): Map<string, CheckNode> {
  if (node.children) return node.children;
  const children = new Map<string, CheckNode>();
  for (const key of Object.keys(node.value)) {
    const v = node.value[key];
    children.set(key, isObject(v) ? { hash: true, source: node.source, value: v, children: null } : { hash: false, source: node.source, value: v });
  }
  return (node.children = children);
}

/**
 * chef-cli's `AttributeMergeChecker`: every source fills one tree; a leaf (anything but an object;
 * arrays included) set again by a later source must be `==` (Ruby: `1 == 1.0`, `[1] == [1.0]`) to the
 * *first* value. Where chef-cli crashes (NoMethodError: an object first and a leaf later, or a leaf
 * first and a non-empty object later) the console reports a conflict; a leaf followed by an empty
 * object is accepted, as chef-cli accepts it. Every conflict is reported, not just the first.
 */
function checkAttributes(precedence: 'default' | 'override', sources: AttrSource[], conflicts: MergeConflict[]) {
  const conflict = (path: string, keys: string[], a: { source: string; value: unknown }, source: string, b: unknown) =>
    conflicts.push({
      kind: 'attribute',
      precedence,
      path,
      pointer: jsonPointer([`${precedence}_attributes`, ...keys]),
      sources: [a.source, source],
      values: [a.value, b],
      message: `Attribute '${path}' (${precedence}) provided conflicting values by the following sources ${JSON.stringify([a.source, source])}: ${show(a.value)} and ${show(b)}`,
    });
  const fill = (node: Map<string, CheckNode>, source: string, path: string, keys: string[], tree: Record<string, unknown>) => {
    for (const key of Object.keys(tree)) {
      const val = tree[key];
      const existing = node.get(key);
      if (isObject(val)) {
        if (!existing) node.set(key, { hash: true, source, value: val, children: null });
        else if (existing.hash) fill(childrenOf(existing), source, `${path}[${key}]`, [...keys, key], val);
        else if (Object.keys(val).length) conflict(`${path}[${key}]`, [...keys, key], existing, source, val);
      } else if (!existing) node.set(key, { hash: false, source, value: val });
      else if (existing.hash || !rubyEq(existing.value, val)) conflict(`${path}[${key}]`, [...keys, key], existing, source, val);
    }
  };
  const root = new Map<string, CheckNode>();
  for (const s of sources) fill(root, s.name, '', [], s.tree);
}

/**
 * Chef's `DeepMerge.merge(acc, lock_attributes)`, applied to the parent and then each include: a later
 * object merges key by key into an earlier object and replaces anything else; a later array is
 * unioned into an earlier array (Ruby `|`: `[1,1,2] | [1,1,2]` is `[1,2]`, `[1] | [1.0]` is `[1, 1.0]`);
 * any other later value replaces the earlier one (so on `0.0` against `-0.0` the later wins).
 * Inputs are never modified; unchanged subtrees are shared.
 */
function deepMerge(source: unknown, dest: unknown, path: string, from: string, origins: OriginLog): unknown {
  if (isObject(source)) {
    if (!isObject(dest)) {
      origins.subtree(source, path, from);
      return source;
    }
    const keys = orderedKeys(dest);
    const out: Record<string, unknown> = {};
    for (const k of keys) setKey(out, k, dest[k]);
    for (const k of orderedKeys(source)) {
      const p = `${path}[${k}]`;
      if (Object.prototype.hasOwnProperty.call(out, k)) setKey(out, k, deepMerge(source[k], out[k], p, from, origins));
      else {
        keys.push(k);
        setKey(out, k, source[k]);
        origins.subtree(source[k], p, from);
      }
    }
    return setKeyOrder(out, keys);
  }
  origins.node(path, from);
  if (Array.isArray(source) && Array.isArray(dest)) return rubyUnion(dest, source);
  return source;
}

function mergeAttributes(precedence: 'default' | 'override', sources: AttrSource[], origins: OriginLog, conflicts: MergeConflict[]): Record<string, unknown> {
  checkAttributes(precedence, sources, conflicts);
  const [first, ...later] = sources;
  origins.subtree(first.tree, '', first.name);
  origins.dropFirst(''); // the root itself has no path
  let acc: Record<string, unknown> = first.tree;
  for (const s of later) acc = deepMerge(s.tree, acc, '', s.name, origins) as Record<string, unknown>;
  origins.dropFirst('');
  return acc;
}

/** Ruby's `Pathname#+`: joins a relative path onto a directory, folding `..` and `.` segments. */
export function joinRelativePath(dir: string, rel: string): string {
  if (rel.startsWith('/')) return rel;
  const parts = dir.split('/').filter((x) => x && x !== '.');
  const absolute = dir.startsWith('/');
  for (const seg of rel.split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..' && parts.length && parts[parts.length - 1] !== '..') parts.pop();
    else parts.push(seg);
  }
  const joined = parts.join('/');
  return absolute ? '/' + joined : joined || '.';
}

const dirnameOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) || '/' : '.');

/**
 * chef-cli's `LocalLockFetcher#transform_path`: a path cookbook in an included lock is located
 * relative to that lock file; the parent sees it relative to itself.
 */
export function rebaseCookbook(entry: CookbookLockEntry, includePath: unknown): CookbookLockEntry {
  if (typeof includePath !== 'string' || !isObject(entry.source_options) || typeof entry.source_options.path !== 'string') return entry;
  const dir = dirnameOf(includePath);
  if (dir === '.') return entry;
  const path = joinRelativePath(dir, entry.source_options.path);
  const out: CookbookLockEntry = { ...entry, source_options: { ...entry.source_options, path } };
  if (typeof entry.source === 'string') out.source = joinRelativePath(dir, entry.source);
  return out;
}

type DepPairs = [string, string][];
/** `name (version)`, how solution_dependencies names a locked cookbook. */
const depKey = (name: string, version: string) => `${name} (${version})`;
const depsOf = (deps: SolutionDependencies | undefined, key: string): DepPairs | undefined => deps?.dependencies?.[key];
const samePairs = (a: DepPairs | undefined, b: DepPairs | undefined) => (a ?? []).length === (b ?? []).length && (a ?? []).every((x, i) => x[0] === b![i][0] && x[1] === b![i][1]);
/** Ruby's Array#sort on [name, constraint] pairs (and `Hash#sort` on keys): byte-wise. */
const byPair = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : String(a[1]) < String(b[1]) ? -1 : String(a[1]) > String(b[1]) ? 1 : 0);

/**
 * The include_policy merge (domain.md §3), computing what chef-cli 5.6.24 computes
 * (`policyfile_compiler.rb`, `attribute_merge_checker.rb`, `included_policies_cookbook_source.rb`,
 * `local_lock_fetcher.rb`), with the console's deliberate differences (docs/chef-compatibility.md):
 * every conflict is reported, identifiers are compared, an object-vs-scalar clash is a conflict (chef-cli
 * crashes), run-list items are normalised before de-duplicating.
 * - run lists: includes in order, then the parent; named run lists per key, keys in document order
 *   (the includes' keys first, then the parent's new ones);
 * - attributes: checked (parent = chef-cli's "user-specified", then each include) and deep-merged;
 * - cookbooks: two includes must agree on version, dependencies, source (paths rebased onto the
 *   parent) and identifier; the parent's own cookbook wins over an include's (a warning);
 * - the result must be self-consistent: every run-list cookbook locked, every constraint in the merged
 *   solution_dependencies (the parent's, the includes', each cookbook's dependencies) met.
 * The result may share subtrees with the inputs: treat both as immutable.
 */
export interface MergeOptions {
  /** Stored locks that nested includes name, for the include-cycle check beyond the includes' own names. */
  lookup?: IncludeLookup;
}

export function mergePolicy(parent: ParentPolicy, includes: IncludedPolicy[], options: MergeOptions = {}): MergeResult {
  const conflicts: MergeConflict[] = [];
  const warnings: MergeWarning[] = [];
  const seen = new Set<string>();
  for (const inc of includes) {
    if (seen.has(inc.name) || inc.name === parent.name) {
      conflicts.push({ kind: 'duplicate_include', sources: [inc.name], message: `Include name '${inc.name}' is used ${inc.name === parent.name ? 'by the parent policy itself' : 'twice'}; include names must be unique` });
    }
    seen.add(inc.name);
  }
  for (const cycle of findIncludeCycles(parent.name, includes, options.lookup)) {
    conflicts.push({ kind: 'include_cycle', sources: [cycle.include], values: cycle.trail, message: `Include cycle: ${cycle.trail.join(' → ')}` });
  }

  const origins = { default: new OriginLog(), override: new OriginLog() };
  const provenance: Provenance = { runList: new Map(), namedRunLists: new Map(), cookbooks: new Map(), attributes: lazyAttributes(origins) };

  // Run lists: the includes' (already normalised) items in include order, then the parent's.
  const normalize = (items: string[], field: string): string[] =>
    items.flatMap((raw, i) => {
      try {
        return [normalizeRunListItem(raw)];
      } catch (e) {
        conflicts.push({ kind: 'invalid_run_list_item', field: `${field}/${i}`, sources: [parent.name], values: [raw], message: `${field.slice(1)} item ${i}: ${(e as Error).message}` });
        return [];
      }
    });
  const dedupe = (sources: { name: string; items: string[] }[], prov: Map<string, string>): string[] => {
    const out: string[] = [];
    for (const s of sources) for (const item of s.items) if (!prov.has(item)) {
      prov.set(item, s.name);
      out.push(item);
    }
    return out;
  };
  const parentNamed = parent.named_run_lists ?? {};
  const parentNamedKeys = orderedKeys(parentNamed);
  const runSources = [
    ...includes.map((i) => ({ name: i.name, runList: i.lock.run_list ?? [], named: i.lock.named_run_lists ?? {} })),
    {
      name: parent.name,
      runList: normalize(parent.run_list ?? [], '/run_list'),
      named: setKeyOrder(Object.fromEntries(parentNamedKeys.map((k) => [k, normalize(parentNamed[k] ?? [], pointer('named_run_lists', k))])), parentNamedKeys),
    },
  ];
  const run_list = dedupe(runSources.map((s) => ({ name: s.name, items: s.runList })), provenance.runList);
  const namedKeys: string[] = [];
  for (const s of runSources) for (const k of orderedKeys(s.named)) if (!namedKeys.includes(k)) namedKeys.push(k);
  const named_run_lists: Record<string, string[]> = {};
  for (const key of namedKeys) {
    const prov = new Map<string, string>();
    setKey(named_run_lists, key, dedupe(runSources.filter((s) => Object.prototype.hasOwnProperty.call(s.named, key)).map((s) => ({ name: s.name, items: (s.named as Record<string, string[]>)[key] })), prov));
    provenance.namedRunLists.set(key, prov);
  }
  setKeyOrder(named_run_lists, namedKeys);

  // Attributes: the parent first, then each include by include name; default and override separately.
  const attrSources = (field: 'default_attributes' | 'override_attributes') => [
    { name: parent.name, tree: parent[field] ?? {} },
    ...includes.map((i) => ({ name: i.name, tree: i.lock[field] ?? {} })),
  ];
  const default_attributes = mergeAttributes('default', attrSources('default_attributes'), origins.default, conflicts);
  const override_attributes = mergeAttributes('override', attrSources('override_attributes'), origins.override, conflicts);

  // Cookbooks. Among includes they must agree; the parent's own cookbook wins over an include's.
  type Provider = { source: string; entry: CookbookLockEntry; key: string; deps: DepPairs | undefined; parent: boolean };
  const chosen = new Map<string, Provider>();
  const fromIncludes = new Map<string, Provider>();
  // chef-cli compares the includes' source options lazily: only when some cookbook of the result comes
  // from the includes (IncludedPoliciesCookbookSource#source_options). Versions and dependencies always.
  const sourceConflicts: MergeConflict[] = [];
  for (const inc of includes) {
    for (const [cb, raw] of Object.entries(inc.lock.cookbook_locks ?? {})) {
      const entry = rebaseCookbook(raw, inc.source_options?.path);
      const key = depKey(cb, entry.version);
      const deps = depsOf(inc.lock.solution_dependencies, key);
      const first = fromIncludes.get(cb);
      if (!first) {
        fromIncludes.set(cb, { source: inc.name, entry, key, deps, parent: false });
        continue;
      }
      const a = first.entry;
      const pair = [first.source, inc.name];
      if (a.version !== entry.version) {
        conflicts.push({ kind: 'cookbook_version', cookbook: cb, sources: pair, values: [a.version, entry.version], message: `Multiple versions provided for cookbook ${cb}: ${a.version} from ${first.source}, ${entry.version} from ${inc.name}` });
      } else if (first.deps && deps && !samePairs(first.deps, deps)) {
        conflicts.push({ kind: 'cookbook_dependencies', cookbook: cb, sources: pair, values: [first.deps, deps], message: `Conflicting dependencies provided for cookbook ${cb}: ${show(first.deps)} from ${first.source}, ${show(deps)} from ${inc.name}` });
      } else if (!rubyEq(a.source_options, entry.source_options)) {
        sourceConflicts.push({ kind: 'cookbook_source', cookbook: cb, sources: pair, values: [a.source_options, entry.source_options], message: `Conflicting sources provided for cookbook ${cb}: ${show(a.source_options)} from ${first.source}, ${show(entry.source_options)} from ${inc.name}` });
      } else if (a.identifier !== entry.identifier) {
        sourceConflicts.push({ kind: 'cookbook_identifier', cookbook: cb, sources: pair, values: [a.identifier, entry.identifier], message: `Cookbook ${cb} ${a.version} has different content in ${first.source} and ${inc.name} (identifiers ${a.identifier} and ${entry.identifier})` });
      }
    }
  }
  for (const [cb, entry] of Object.entries(parent.cookbook_locks ?? {})) {
    const key = depKey(cb, entry.version);
    chosen.set(cb, { source: parent.name, entry, key, deps: depsOf(parent.solution_dependencies, key), parent: true });
    const inc = fromIncludes.get(cb);
    if (inc && (inc.entry.version !== entry.version || inc.entry.identifier !== entry.identifier || !rubyEq(inc.entry.source_options, entry.source_options))) {
      warnings.push({
        kind: 'parent_cookbook_wins',
        cookbook: cb,
        sources: [parent.name, inc.source],
        values: [{ version: entry.version, identifier: entry.identifier, source_options: entry.source_options }, { version: inc.entry.version, identifier: inc.entry.identifier, source_options: inc.entry.source_options }],
        message: `The parent's own cookbook ${cb} ${entry.version} (${show(entry.source_options ?? {})}) is used instead of ${inc.source}'s ${inc.entry.version} (${show(inc.entry.source_options ?? {})}), as chef-cli does`,
      });
    }
  }
  for (const [cb, p] of fromIncludes) if (!chosen.has(cb)) chosen.set(cb, p);
  let fromAnInclude = false;
  for (const p of chosen.values()) {
    if (!p.parent) {
      fromAnInclude = true;
      break;
    }
  }
  if (fromAnInclude) conflicts.push(...sourceConflicts);
  else {
    for (const c of sourceConflicts) {
      warnings.push({ kind: 'moot_include_conflict', cookbook: c.cookbook!, sources: c.sources, values: c.values ?? [], message: `${c.message}; moot, as the parent locks ${c.cookbook} itself and takes no cookbook from its includes (chef-cli does not check it then)` });
    }
  }
  const names = [...chosen.keys()].sort();
  const cookbook_locks: Record<string, CookbookLockEntry> = {};
  for (const cb of names) {
    setKey(cookbook_locks, cb, chosen.get(cb)!.entry);
    provenance.cookbooks.set(cb, chosen.get(cb)!.source);
  }

  // Self-consistency: every run-list cookbook locked, every constraint met (chef-cli's solver refuses otherwise).
  const runItems = [...run_list.map((x) => ['/run_list', x] as const), ...namedKeys.flatMap((k) => named_run_lists[k].map((x) => [pointer('named_run_lists', k), x] as const))];
  const missing = new Map<string, string>();
  for (const [field, item] of runItems) {
    const cb = cookbookOf(item);
    if (!chosen.has(cb) && !missing.has(cb)) missing.set(cb, field);
  }
  for (const [cb, field] of missing) {
    conflicts.push({ kind: 'missing_cookbook', cookbook: cb, sources: [provenance.runList.get(runItems.find(([, x]) => cookbookOf(x) === cb)![1]) ?? parent.name], message: `${field.slice(1)} names cookbook ${cb}, but no cookbook lock provides it` });
  }
  const demands: { by: string; on: string; constraint: string }[] = [];
  for (const [cb, constraint] of parent.solution_dependencies?.Policyfile ?? []) demands.push({ by: parent.name, on: cb, constraint });
  for (const inc of includes) for (const [cb, constraint] of inc.lock.solution_dependencies?.Policyfile ?? []) demands.push({ by: inc.name, on: cb, constraint });
  for (const cb of names) {
    const p = chosen.get(cb)!;
    for (const [dep, constraint] of p.deps ?? []) demands.push({ by: `${cb} ${p.entry.version} (from ${p.source})`, on: dep, constraint });
  }
  const unmet = new Set<string>();
  // Many cookbooks share a constraint (`>= 0.0.0`): each version against each constraint once.
  const verdicts = new Map<string, Map<string, boolean>>();
  const meets = (version: string, constraint: string) => {
    let byVersion = verdicts.get(constraint);
    if (!byVersion) verdicts.set(constraint, (byVersion = new Map()));
    let v = byVersion.get(version);
    if (v === undefined) byVersion.set(version, (v = satisfies(version, constraint)));
    return v;
  };
  for (const d of demands) {
    const got = chosen.get(d.on);
    if (got && meets(got.entry.version, d.constraint)) continue;
    // Unmet: each (who, what, constraint) reported once.
    const key = `${d.by}|${d.on}|${d.constraint}`;
    if (unmet.has(key)) continue;
    if (!got) {
      unmet.add(key);
      conflicts.push({ kind: 'unsatisfied_constraint', cookbook: d.on, sources: [d.by], values: [d.constraint, null], message: `${d.by} requires ${d.on} ${d.constraint}, but no cookbook lock provides ${d.on}` });
    } else {
      unmet.add(key);
      conflicts.push({
        kind: 'unsatisfied_constraint',
        cookbook: d.on,
        sources: [d.by, got.source],
        values: [d.constraint, `= ${got.entry.version}`],
        message: `${d.by} requires ${d.on} ${d.constraint}, but ${got.source} pins ${d.on} = ${got.entry.version}`,
      });
    }
  }

  // chef-cli's solver refuses circular dependencies ("There is a circular dependency between a and b").
  const state = new Map<string, 1 | 2>();
  const cycles: string[][] = [];
  const trail: string[] = []; // the path from the walk's root to the cookbook being visited
  const visit = (cb: string) => {
    state.set(cb, 1);
    trail.push(cb);
    for (const [dep] of chosen.get(cb)!.deps ?? []) {
      if (!chosen.has(dep)) continue;
      if (state.get(dep) === 1) cycles.push([...trail.slice(trail.indexOf(dep)), dep]);
      else if (!state.has(dep)) visit(dep);
    }
    trail.pop();
    state.set(cb, 2);
  };
  for (const cb of names) if (!state.has(cb)) visit(cb);
  for (const cycle of cycles) {
    conflicts.push({ kind: 'dependency_cycle', cookbook: cycle[0], sources: [...new Set(cycle.slice(0, -1).map((cb) => chosen.get(cb)!.source))], values: cycle, message: `Circular dependency between cookbooks: ${cycle.join(' → ')}` });
  }

  if (conflicts.length) return { ok: false, conflicts, warnings };

  // solution_dependencies as chef-cli writes them: the parent's constraints for its own cookbooks,
  // `= version` for what the includes bring, each locked cookbook's dependencies; both sorted.
  const parentConstraint = new Map((parent.solution_dependencies?.Policyfile ?? []).map(([n, c]) => [n, c] as const));
  const policyfile: [string, string][] = names.map((cb) => {
    const p = chosen.get(cb)!;
    return [cb, p.parent ? parentConstraint.get(cb) ?? '>= 0.0.0' : `= ${p.entry.version}`];
  });
  for (const [n, c] of parentConstraint) if (!chosen.has(n)) policyfile.push([n, c]);
  policyfile.sort(byPair);
  const depEntries = names.map((cb) => [chosen.get(cb)!.key, chosen.get(cb)!.deps ?? []] as [string, DepPairs]).sort(byPair);
  const dependencies: Record<string, [string, string][]> = {};
  for (const [k, v] of depEntries) setKey(dependencies, k, v);

  const included_policy_locks: IncludedPolicyLockRef[] = includes.map((i) => ({ name: i.name, revision_id: i.lock.revision_id, source_options: i.source_options }));
  const lock: PolicyLock = {
    revision_id: '',
    name: parent.name,
    run_list,
    ...(namedKeys.length ? { named_run_lists } : {}),
    included_policy_locks,
    cookbook_locks,
    default_attributes,
    override_attributes,
    solution_dependencies: { Policyfile: policyfile, dependencies },
  };
  lock.revision_id = computeRevisionId(lock);
  return { ok: true, lock, provenance, warnings };
}
