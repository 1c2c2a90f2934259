import { bumpLevel, compareVersions, jsonEqual, sortCodePoints, stableJson } from '@/lib/domain/shared';
import type { CookbookLockEntry, PolicyLock } from '../lock/types';
import { diffSequence, type SequenceChange } from './lcs';

export type CookbookChangeKind = 'added' | 'removed' | 'upgraded' | 'downgraded' | 'content_changed' | 'source_changed';

/** One cookbook that differs between the two locks. */
export interface CookbookChange {
  name: string;
  kind: CookbookChangeKind;
  /** For upgrades and downgrades: the first version part that changed. */
  level?: 'major' | 'minor' | 'patch';
  from?: { version: string; identifier: string };
  to?: { version: string; identifier: string };
  /** Source metadata fields that differ (source, source_options, scm_info, cache_key, origin…). */
  sourceFields?: string[];
}

export type RunListChange = SequenceChange;

export interface NamedRunListChange {
  name: string;
  kind: 'added' | 'removed' | 'changed';
  changes: RunListChange[];
}

export interface AttributeChange {
  kind: 'added' | 'removed' | 'changed';
  precedence: 'default' | 'override';
  /** Keys from the root, and chef-cli's display form `[a][b]`. */
  path: string[];
  pathText: string;
  from?: unknown;
  to?: unknown;
}

export interface KeyedChange<T = unknown> {
  key: string;
  kind: 'added' | 'removed' | 'changed';
  from?: T;
  to?: T;
}

/** A semantic diff of two locks. Every list holds only what changed. */
export interface LockDiff {
  identical: boolean;
  name: { from: string; to: string; changed: boolean };
  revisionId: { from: string; to: string; changed: boolean };
  cookbooks: CookbookChange[];
  runList: RunListChange[];
  namedRunLists: NamedRunListChange[];
  attributes: AttributeChange[];
  includedPolicies: KeyedChange<{ revision_id: string; source_options: unknown }>[];
  solutionDependencies: KeyedChange[];
  summary: {
    cookbooks: Record<CookbookChangeKind, number> & { major: number; minor: number; patch: number; unchanged: number };
    runList: { added: number; removed: number; moved: number };
    namedRunLists: number;
    attributes: { added: number; removed: number; changed: number };
    includedPolicies: number;
    solutionDependencies: number;
    /** Number of changes of every kind (revision id excluded). */
    total: number;
  };
}

const SOURCE_IGNORED = new Set(['version', 'identifier', 'dotted_decimal_identifier']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Source metadata fields that differ, or null (hot loop: no allocation when nothing differs). */
function sourceFieldsThatDiffer(a: CookbookLockEntry, b: CookbookLockEntry): string[] | null {
  let out: string[] | null = null;
  for (const k in a) {
    if (SOURCE_IGNORED.has(k)) continue;
    const x = a[k];
    const y = b[k];
    if (x !== y && !jsonEqual(x, y)) (out ??= []).push(k);
  }
  for (const k in b) if (!(k in a) && !SOURCE_IGNORED.has(k)) (out ??= []).push(k);
  return out && out.sort();
}

function diffCookbooks(from: Record<string, CookbookLockEntry>, to: Record<string, CookbookLockEntry>): CookbookChange[] {
  const out: CookbookChange[] = [];
  const has = Object.prototype.hasOwnProperty;
  for (const name in from) {
    const a = from[name];
    if (!has.call(to, name)) {
      out.push({ name, kind: 'removed', from: { version: a.version, identifier: a.identifier } });
      continue;
    }
    const b = to[name];
    if (a.version === b.version && a.identifier === b.identifier) {
      const fields = sourceFieldsThatDiffer(a, b);
      if (fields) out.push({ name, kind: 'source_changed', sourceFields: fields, from: { version: a.version, identifier: a.identifier }, to: { version: b.version, identifier: b.identifier } });
      continue;
    }
    const ends = { from: { version: a.version, identifier: a.identifier }, to: { version: b.version, identifier: b.identifier } };
    const cmp = compareVersions(a.version, b.version);
    if (cmp !== 0) out.push({ name, kind: cmp < 0 ? 'upgraded' : 'downgraded', level: bumpLevel(a.version, b.version) ?? undefined, ...ends });
    else out.push({ name, kind: 'content_changed', ...ends });
  }
  for (const name in to) {
    if (!has.call(from, name)) out.push({ name, kind: 'added', to: { version: to[name].version, identifier: to[name].identifier } });
  }
  return out.sort(byName);
}

function diffAttributes(precedence: 'default' | 'override', a: unknown, b: unknown, path: string[], out: AttributeChange[]) {
  if (isObject(a) && isObject(b)) {
    // Keys in code-point order: the diff of two locks does not depend on how their keys were ordered.
    const has = Object.prototype.hasOwnProperty;
    const keys = Object.keys(a);
    for (const k of Object.keys(b)) if (!has.call(a, k)) keys.push(k);
    for (const k of sortCodePoints(keys)) {
      if (!has.call(b, k)) leaves(precedence, 'removed', a[k], [...path, k], out);
      else if (!has.call(a, k)) leaves(precedence, 'added', b[k], [...path, k], out);
      else diffAttributes(precedence, a[k], b[k], [...path, k], out);
    }
    return;
  }
  if (!jsonEqual(a, b)) out.push({ kind: 'changed', precedence, path, pathText: pathText(path), from: a, to: b });
}

/** Every leaf under a subtree that exists on one side only (an empty object counts as one leaf). */
function leaves(precedence: 'default' | 'override', kind: 'added' | 'removed', v: unknown, path: string[], out: AttributeChange[]) {
  if (isObject(v) && Object.keys(v).length) {
    for (const k of sortCodePoints(Object.keys(v))) leaves(precedence, kind, v[k], [...path, k], out);
    return;
  }
  out.push(kind === 'added' ? { kind, precedence, path, pathText: pathText(path), to: v } : { kind, precedence, path, pathText: pathText(path), from: v });
}

export const pathText = (path: string[]) => path.map((p) => `[${p}]`).join('');

function diffKeyed<T>(a: Map<string, T>, b: Map<string, T>): KeyedChange<T>[] {
  const out: KeyedChange<T>[] = [];
  for (const [key, x] of a) {
    if (!b.has(key)) out.push({ key, kind: 'removed', from: x });
    else {
      const y = b.get(key)!;
      if (x !== y && !jsonEqual(x, y)) out.push({ key, kind: 'changed', from: x, to: y });
    }
  }
  for (const [key, y] of b) if (!a.has(key)) out.push({ key, kind: 'added', to: y });
  return out.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}

function includesByName(lock: PolicyLock) {
  return new Map((lock.included_policy_locks ?? []).map((i) => [i.name, { revision_id: i.revision_id, source_options: i.source_options }]));
}

function dependencyEntries(lock: PolicyLock): Map<string, unknown> {
  const sd = lock.solution_dependencies ?? {};
  const out = new Map<string, unknown>();
  for (const pair of sd.Policyfile ?? []) if (Array.isArray(pair)) out.set(`Policyfile: ${pair[0]}`, pair[1]);
  // Keyed by cookbook name: a version bump alone is a cookbook change, reported there; here only the dependency lists.
  const deps = sd.dependencies ?? {};
  for (const k in deps) {
    const paren = k.lastIndexOf(' (');
    out.set(`${paren > 0 ? k.slice(0, paren) : k} depends on`, deps[k]);
  }
  return out;
}

/**
 * The semantic diff of two locks (domain.md §4): every cookbook, run-list,
 * attribute, include and dependency change, classified, with a summary.
 * Pure and deterministic; swapping sides swaps added/removed and
 * upgraded/downgraded.
 */
export function diffLocks(from: PolicyLock, to: PolicyLock): LockDiff {
  const cookbooks = diffCookbooks(from.cookbook_locks ?? {}, to.cookbook_locks ?? {});
  const runList = diffSequence(from.run_list ?? [], to.run_list ?? []);
  const namedRunLists: NamedRunListChange[] = [];
  const na = from.named_run_lists ?? {};
  const nb = to.named_run_lists ?? {};
  for (const name of [...new Set([...Object.keys(na), ...Object.keys(nb)])].sort()) {
    const changes = diffSequence(na[name] ?? [], nb[name] ?? []);
    if (!(name in nb)) namedRunLists.push({ name, kind: 'removed', changes });
    else if (!(name in na)) namedRunLists.push({ name, kind: 'added', changes });
    else if (changes.length) namedRunLists.push({ name, kind: 'changed', changes });
  }
  const attributes: AttributeChange[] = [];
  diffAttributes('default', from.default_attributes ?? {}, to.default_attributes ?? {}, [], attributes);
  diffAttributes('override', from.override_attributes ?? {}, to.override_attributes ?? {}, [], attributes);
  const includedPolicies = diffKeyed(includesByName(from), includesByName(to));
  const solutionDependencies = diffKeyed(dependencyEntries(from), dependencyEntries(to));

  const cb = { added: 0, removed: 0, upgraded: 0, downgraded: 0, content_changed: 0, source_changed: 0, major: 0, minor: 0, patch: 0, unchanged: 0 };
  for (const c of cookbooks) {
    cb[c.kind]++;
    if (c.level) cb[c.level]++;
  }
  cb.unchanged = Object.keys(from.cookbook_locks ?? {}).length + cb.added - cookbooks.length;
  const rl = { added: 0, removed: 0, moved: 0 };
  for (const c of runList) rl[c.kind]++;
  const at = { added: 0, removed: 0, changed: 0 };
  for (const c of attributes) at[c.kind]++;
  const total = cookbooks.length + runList.length + namedRunLists.length + attributes.length + includedPolicies.length + solutionDependencies.length + (from.name !== to.name ? 1 : 0);
  const revChanged = from.revision_id !== to.revision_id;
  return {
    identical: total === 0 && !revChanged,
    name: { from: from.name, to: to.name, changed: from.name !== to.name },
    revisionId: { from: from.revision_id, to: to.revision_id, changed: revChanged },
    cookbooks,
    runList,
    namedRunLists,
    attributes,
    includedPolicies,
    solutionDependencies,
    summary: { cookbooks: cb, runList: rl, namedRunLists: namedRunLists.length, attributes: at, includedPolicies: includedPolicies.length, solutionDependencies: solutionDependencies.length, total },
  };
}

/** Pretty JSON with sorted keys: the stable text both sides of the text diff show. */
export function canonicalLockText(lock: PolicyLock): string {
  return stableJson(lock, 2) + '\n';
}
