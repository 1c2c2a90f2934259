/**
 * What Chef Infra Server indexes for each object (erchef's `ejson_for_indexing`
 * and `chef_index_expand`), as rows of (path, leaf key, value).
 *
 * Chef flattens an object into `key__=__value` tokens: every leaf under its
 * full key path joined with `_` and under its last key, every object key also
 * as a value of its parent's path, arrays element by element, null as "".
 * Solr then lowercases the tokens and splits them at whitespace, so a field
 * matches the first word of a multi-word value. Here a row keeps the path and
 * its last key apart (queries on either find it) and the value lowercased,
 * with whitespace runs collapsed; a multi-word value is stored whole (for
 * phrases) and by its first word (for terms).
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

/** The longest path or value stored (Solr's whitespace tokenizer cuts tokens at 255 characters as well). */
export const MAX_TOKEN = 255;

/** One indexed fact: `path` is the key path joined with `_`, `leaf` its last key; both lowercased. */
export interface IndexRow {
  path: string;
  leaf: string;
  value: string;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Chef Server's deep merge (chef_deep_merge): objects merge key by key, anything else is replaced by the later value. */
export function deepMerge(a: Json | undefined, b: Json | undefined): Json | undefined {
  if (b === undefined) return a;
  if (isObject(a) && isObject(b)) {
    const out: JsonObject = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in a ? (deepMerge(a[k], v) as Json) : v;
    return out;
  }
  return b;
}

function obj(v: unknown): JsonObject {
  return isObject(v) ? v : {};
}

function runListItems(runList: unknown, kind: 'recipe' | 'role'): string[] {
  if (!Array.isArray(runList)) return [];
  const prefix = `${kind}[`;
  return runList.filter((x): x is string => typeof x === 'string' && x.startsWith(prefix) && x.endsWith(']')).map((x) => x.slice(prefix.length, -1));
}

/**
 * The document Chef indexes for a node: default, normal, override and
 * automatic attributes deep-merged in that order (later wins), then the
 * top-level fields over them: name, chef_type, chef_environment, recipe and
 * role (from the run list), run_list, and policy_name / policy_group when set.
 * `recipes` and `roles` (the expanded run list) come from the automatic
 * attributes chef-client saves.
 */
export function nodeSearchDocument(node: Record<string, unknown>): JsonObject {
  let merged: Json | undefined = {};
  for (const level of ['default', 'normal', 'override', 'automatic']) merged = deepMerge(merged, obj(node[level]));
  const out: JsonObject = { ...obj(merged) };
  const runList = Array.isArray(node.run_list) ? (node.run_list as Json[]) : [];
  out.name = (node.name as Json) ?? '';
  out.chef_type = 'node';
  out.chef_environment = (node.chef_environment as Json) ?? '_default';
  out.recipe = runListItems(runList, 'recipe');
  out.role = runListItems(runList, 'role');
  out.run_list = runList;
  if (node.policy_name !== undefined && node.policy_name !== null) out.policy_name = node.policy_name as Json;
  if (node.policy_group !== undefined && node.policy_group !== null) out.policy_group = node.policy_group as Json;
  return out;
}

/** The document Chef indexes for a client: its JSON as GET /clients/NAME answers it. */
export function clientSearchDocument(client: { name: string; validator: boolean; admin?: boolean; orgname?: string }): JsonObject {
  return {
    name: client.name,
    clientname: client.name,
    ...(client.orgname ? { orgname: client.orgname } : {}),
    validator: client.validator,
    admin: client.admin ?? false,
    json_class: 'Chef::ApiClient',
    chef_type: 'client',
  };
}

/** The document Chef indexes for a data bag item: the item with `chef_type` and `data_bag` set (Chef::DataBagItem#to_hash). */
export function dataBagItemSearchDocument(bag: string, item: Record<string, unknown>): JsonObject {
  return { ...(item as JsonObject), chef_type: 'data_bag_item', data_bag: bag };
}

/** Solr's view of a value: lowercased, whitespace runs collapsed, cut at MAX_TOKEN. */
export function normaliseValue(v: string): string {
  // Most values hold no whitespace: then trimming and collapsing change nothing (`trim` and `\s` know the same characters).
  if (!/\s/.test(v)) return v.toLowerCase().slice(0, MAX_TOKEN);
  return v.trim().replace(/\s+/g, ' ').toLowerCase().slice(0, MAX_TOKEN);
}

/** A field name as the index stores it. */
export function normaliseField(f: string): string {
  return f.toLowerCase().slice(0, MAX_TOKEN);
}

function scalarText(v: Json): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  return String(v);
}

/**
 * Flattens an indexed document into rows (deduplicated). Keys whose path is
 * empty (a top-level scalar document) are not indexed, as in Chef.
 *
 * Each key's path is built once from its parent's (not re-joined for every
 * value below it): a node of 30 KB of Ohai flattens to a few thousand rows on
 * every save, so this runs in the node write's transaction.
 */
export function flattenForIndex(doc: Json): IndexRow[] {
  // Seen rows by path, then leaf, then value: no key strings to build and hash for each of thousands of rows.
  const seen = new Map<string, Map<string, Set<string>>>();
  const rows: IndexRow[] = [];
  const push = (path: string, leaf: string, value: string) => {
    let byLeaf = seen.get(path);
    if (!byLeaf) seen.set(path, (byLeaf = new Map()));
    let values = byLeaf.get(leaf);
    if (!values) byLeaf.set(leaf, (values = new Set()));
    if (values.has(value)) return;
    values.add(value);
    rows.push({ path, leaf, value });
  };
  const add = (path: string, leaf: string, raw: string) => {
    const full = normaliseValue(raw);
    push(path, leaf, full);
    const space = full.indexOf(' ');
    if (space > 0) push(path, leaf, full.slice(0, space));
  };
  // `raw` is the key path joined with `_` as written (null at the top); `path` and `leaf` are its stored forms.
  const walk = (raw: string | null, path: string, leaf: string, v: Json) => {
    if (Array.isArray(v)) {
      for (const x of v) walk(raw, path, leaf, x);
    } else if (isObject(v)) {
      for (const k of Object.keys(v)) {
        if (raw !== null) add(path, leaf, k);
        const childRaw = raw === null ? k : `${raw}_${k}`;
        walk(childRaw, normaliseField(childRaw), normaliseField(k), v[k]);
      }
    } else if (raw !== null) {
      add(path, leaf, scalarText(v));
    }
  };
  walk(null, '', '', doc);
  return rows;
}

/**
 * The value at `path` in a document, or null (partial search: Chef answers
 * null for a path that is missing or leads through a non-object).
 */
export function valueAt(doc: Json, path: string[]): Json {
  let cur: Json = doc;
  for (const key of path) {
    if (!isObject(cur) || !(key in cur)) return null;
    cur = cur[key];
  }
  return cur;
}
