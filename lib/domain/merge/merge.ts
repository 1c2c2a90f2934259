import { jsonEqual } from '../diff/diff';
import { satisfies } from '../promote/constraint';
import { defineKey } from '../lock/json';
import { computeRevisionId } from '../lock/revision-id';
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
  kind: 'attribute' | 'cookbook_version' | 'cookbook_identifier' | 'cookbook_source' | 'cookbook_dependencies' | 'unsatisfied_constraint' | 'duplicate_include' | 'include_cycle';
  /** chef-cli style `[a][b]` for attributes. */
  path?: string;
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
  /** [path, source] for every attribute node, in merge order (an array: no hashing of tens of thousands of paths). */
  attributes: { default: [string, string][]; override: [string, string][] };
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

/** Provenance as plain objects (for JSON). */
export function provenanceToJson(p: Provenance): ProvenanceJson {
  const named: Record<string, Record<string, string>> = {};
  for (const [k, m] of p.namedRunLists) setKey(named, k, mapToObject(m));
  return {
    runList: mapToObject(p.runList),
    namedRunLists: named,
    cookbooks: mapToObject(p.cookbooks),
    attributes: { default: mapToObject(new Map(p.attributes.default)), override: mapToObject(new Map(p.attributes.override)) },
  };
}

export type MergeResult = { ok: true; lock: PolicyLock; provenance: Provenance } | { ok: false; conflicts: MergeConflict[] };

/** Policyfile.rb shorthand to a lock's form: `nginx` → `recipe[nginx::default]`, `nginx::repo` → `recipe[nginx::repo]`. */
export function normalizeRunListItem(item: string): string {
  const s = item.trim();
  const inner = /^recipe\[(.+)\]$/.exec(s)?.[1] ?? (/^[.A-Za-z0-9_-]+(::[.A-Za-z0-9_-]+)?$/.test(s) ? s : null);
  if (inner === null) return s;
  return `recipe[${inner.includes('::') ? inner : `${inner}::default`}]`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function mergeRunLists(sources: { name: string; items: string[] }[], provenance: Map<string, string>): string[] {
  const out: string[] = [];
  for (const s of sources) {
    for (const raw of s.items) {
      const item = normalizeRunListItem(raw);
      if (provenance.has(item)) continue;
      provenance.set(item, s.name);
      out.push(item);
    }
  }
  return out;
}

/** Sets an own property; only `__proto__` needs defineProperty (plain assignment is much faster). */
function setKey(target: Record<string, unknown>, key: string, value: unknown) {
  if (key === '__proto__') defineKey(target, key, value);
  else target[key] = value;
}

/** Records the origin of a subtree that one source brings alone (every node, leaves included). */
function recordOrigins(value: unknown, path: string, source: string, origins: [string, string][]): void {
  origins.push([path, source]);
  if (!isObject(value)) return;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) recordOrigins(value[keys[i]], path + '[' + keys[i] + ']', source, origins);
}

/** The first source (before `current`) that sets the node at `keys`: who a conflict is with. */
function firstSetter(sources: { name: string; tree: Record<string, unknown> }[], keys: string[], current: string): string {
  for (const s of sources) {
    if (s.name === current) break;
    let node: unknown = s.tree;
    let found = true;
    for (const k of keys) {
      if (!isObject(node) || !Object.prototype.hasOwnProperty.call(node, k)) {
        found = false;
        break;
      }
      node = node[k];
    }
    if (found) return s.name;
  }
  return '?';
}

/**
 * Merges attribute trees source by source, recording every leaf's origin and
 * every conflict. Copy-on-write: a subtree only one source brings is shared
 * with that input (inputs and result are treated as immutable); an object is
 * copied the moment a second source merges into it.
 */
function mergeAttributes(precedence: 'default' | 'override', sources: { name: string; tree: Record<string, unknown> }[], origins: [string, string][], conflicts: MergeConflict[]) {
  const merged: Record<string, unknown> = {};
  const owned = new WeakSet<object>([merged]);
  const has = Object.prototype.hasOwnProperty;
  const walk = (target: Record<string, unknown>, src: Record<string, unknown>, path: string, source: string) => {
    for (const k in src) {
      if (!has.call(src, k)) continue;
      const b = src[k];
      const p = `${path}[${k}]`;
      if (!has.call(target, k)) {
        setKey(target, k, b);
        recordOrigins(b, p, source, origins);
        continue;
      }
      const a = target[k];
      if (isObject(a) && isObject(b)) {
        let into = a;
        if (!owned.has(a)) {
          into = { ...a };
          owned.add(into);
          setKey(target, k, into);
        }
        walk(into, b, p, source);
      } else if (!jsonEqual(a, b)) {
        const first = firstSetter(sources, p.slice(1, -1).split(']['), source);
        conflicts.push({
          kind: 'attribute',
          precedence,
          path: p,
          sources: [first, source],
          values: [a, b],
          message: `Attribute '${p}' (${precedence}) provided conflicting values by the following sources ${JSON.stringify([first, source])}: ${JSON.stringify(a)} and ${JSON.stringify(b)}`,
        });
      }
    }
  };
  for (const s of sources) walk(merged, s.tree, '', s.name);
  return merged;
}

function depsOf(lock: { solution_dependencies?: SolutionDependencies }, name: string, version: string): unknown {
  return lock.solution_dependencies?.dependencies?.[`${name} (${version})`];
}

/**
 * The include_policy merge (domain.md §3). The result may share unchanged
 * subtrees and cookbook entries' nested objects with the inputs: treat both as immutable.: run lists includes-first and
 * de-duplicated after normalising, attributes unioned after a conflict check,
 * cookbooks that must agree, the direct includes recorded, a fresh revision
 * id. Reports every conflict, not just the first.
 */
export function mergePolicy(parent: ParentPolicy, includes: IncludedPolicy[]): MergeResult {
  const conflicts: MergeConflict[] = [];
  const seen = new Set<string>();
  for (const inc of includes) {
    if (seen.has(inc.name) || inc.name === parent.name) {
      conflicts.push({ kind: 'duplicate_include', sources: [inc.name], message: `Include name '${inc.name}' is used ${inc.name === parent.name ? 'by the parent policy itself' : 'twice'}; include names must be unique` });
    }
    seen.add(inc.name);
    const nested = (inc.lock.included_policy_locks ?? []).map((r) => r.name);
    if (inc.lock.name === parent.name || nested.includes(parent.name)) {
      const path = inc.lock.name === parent.name ? [parent.name, inc.name, parent.name] : [parent.name, inc.name, parent.name];
      conflicts.push({ kind: 'include_cycle', sources: [inc.name], message: `Include cycle: ${path.join(' → ')}` });
    }
  }

  const sources = [
    { name: parent.name, runList: parent.run_list, named: parent.named_run_lists ?? {}, cookbooks: parent.cookbook_locks ?? {}, def: parent.default_attributes ?? {}, ovr: parent.override_attributes ?? {}, deps: parent },
    ...includes.map((i) => ({
      name: i.name,
      runList: i.lock.run_list ?? [],
      named: i.lock.named_run_lists ?? {},
      cookbooks: i.lock.cookbook_locks ?? {},
      def: i.lock.default_attributes ?? {},
      ovr: i.lock.override_attributes ?? {},
      deps: i.lock as { solution_dependencies?: SolutionDependencies },
    })),
  ];
  const runOrder = [...sources.slice(1), sources[0]];
  const provenance: Provenance = { runList: new Map(), namedRunLists: new Map(), cookbooks: new Map(), attributes: { default: [], override: [] } };

  const run_list = mergeRunLists(runOrder.map((s) => ({ name: s.name, items: s.runList })), provenance.runList);
  const named_run_lists: Record<string, string[]> = {};
  const namedKeys = [...new Set(runOrder.flatMap((s) => Object.keys(s.named)))];
  for (const key of namedKeys) {
    const prov = new Map<string, string>();
    setKey(named_run_lists, key, mergeRunLists(runOrder.filter((s) => s.named[key]).map((s) => ({ name: s.name, items: s.named[key] })), prov));
    provenance.namedRunLists.set(key, prov);
  }

  // Attributes: the parent first, then each include by include name; default and override separately.
  const default_attributes = mergeAttributes('default', sources.map((s) => ({ name: s.name, tree: s.def })), provenance.attributes.default, conflicts);
  const override_attributes = mergeAttributes('override', sources.map((s) => ({ name: s.name, tree: s.ovr })), provenance.attributes.override, conflicts);

  // Cookbooks must agree wherever two sources lock the same one.
  const cookbook_locks: Record<string, CookbookLockEntry> = {};
  const owner = new Map<string, (typeof sources)[number]>();
  for (const s of sources) {
    for (const [cb, entry] of Object.entries(s.cookbooks)) {
      const first = owner.get(cb);
      if (!first) {
        setKey(cookbook_locks, cb, entry);
        owner.set(cb, s);
        provenance.cookbooks.set(cb, s.name);
        continue;
      }
      const a = first.cookbooks[cb];
      const pair = [first.name, s.name];
      if (a.version !== entry.version) {
        conflicts.push({ kind: 'cookbook_version', cookbook: cb, sources: pair, values: [a.version, entry.version], message: `Multiple versions provided for cookbook ${cb}: ${a.version} from ${first.name}, ${entry.version} from ${s.name}` });
      } else if (a.identifier !== entry.identifier) {
        conflicts.push({ kind: 'cookbook_identifier', cookbook: cb, sources: pair, values: [a.identifier, entry.identifier], message: `Cookbook ${cb} ${a.version} has different content in ${first.name} and ${s.name} (identifiers ${a.identifier} and ${entry.identifier})` });
      } else if (!jsonEqual(a.source_options, entry.source_options)) {
        conflicts.push({ kind: 'cookbook_source', cookbook: cb, sources: pair, values: [a.source_options, entry.source_options], message: `Conflicting sources provided for cookbook ${cb}` });
      } else {
        const da = depsOf(first.deps, cb, a.version);
        const db = depsOf(s.deps, cb, entry.version);
        if (da !== undefined && db !== undefined && !jsonEqual(da, db)) {
          conflicts.push({ kind: 'cookbook_dependencies', cookbook: cb, sources: pair, values: [da, db], message: `Conflicting dependencies provided for cookbook ${cb}` });
        }
      }
    }
  }

  // The parent's own constraints must accept what the includes pin.
  for (const [cb, constraint] of parent.solution_dependencies?.Policyfile ?? []) {
    const pinnedBy = owner.get(cb);
    if (!pinnedBy || pinnedBy === sources[0]) continue;
    const version = cookbook_locks[cb].version;
    if (!satisfies(version, constraint)) {
      conflicts.push({
        kind: 'unsatisfied_constraint',
        cookbook: cb,
        sources: [parent.name, pinnedBy.name],
        values: [constraint, `= ${version}`],
        message: `${parent.name} requires ${cb} ${constraint}, but ${pinnedBy.name} pins ${cb} = ${version}`,
      });
    }
  }

  if (conflicts.length) return { ok: false, conflicts };

  const policyfile: [string, string][] = [];
  const pfSeen = new Set<string>();
  const dependencies: Record<string, [string, string][]> = {};
  for (const s of sources) {
    for (const pair of s.deps.solution_dependencies?.Policyfile ?? []) {
      const key = JSON.stringify(pair);
      if (!pfSeen.has(key)) {
        pfSeen.add(key);
        policyfile.push([pair[0], pair[1]]);
      }
    }
    for (const [k, v] of Object.entries(s.deps.solution_dependencies?.dependencies ?? {})) if (!Object.prototype.hasOwnProperty.call(dependencies, k)) defineKey(dependencies, k, v);
  }
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
  return { ok: true, lock, provenance };
}
