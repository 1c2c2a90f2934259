/**
 * Chef's resource/provider node map (`lib/chef/node_map.rb`) with the locking
 * of the Resource Map Locking RFC, in three modes (ordering.md B):
 * `rfc` refuses a cookbook's collision with a locked core name; `chef14`
 * (14.3–14.12) maps it with a CHEF-25 deprecation; `chef15` maps it with a
 * warning and rejects the two override options.
 */
import { compareCodePoints, satisfies } from '@/lib/domain/shared';

export type ResourceMapMode = 'rfc' | 'chef14' | 'chef15';
type FilterValue = string | string[];

export interface RegistrationFilters {
  platform?: FilterValue;
  platform_family?: FilterValue;
  /** A version requirement or several (`>= 7`, `~> 14.0`). */
  platform_version?: FilterValue;
  os?: FilterValue;
  override?: boolean;
  /** A block: stands for Ruby code; `result` is what it returns for the chosen node. */
  block?: { label: string; result: boolean };
}

export interface Registration {
  key: string;
  className: string;
  source: 'core' | 'cookbook';
  kind?: 'resource' | 'provider';
  filters?: RegistrationFilters;
  /** On a core entry: `true`, or a Chef version requirement under which cookbooks may take the name. */
  allowCookbookOverride?: boolean | string;
  /** On a cookbook registration: `__core_override__: true`. */
  coreOverride?: boolean;
  /** Register only when the selected Chef version meets this requirement. */
  chefVersion?: string;
}

export interface NodeFacts {
  platform: string;
  platform_family: string;
  platform_version: string;
  os: string;
}

export interface ResolveResourceMapInput {
  mode: ResourceMapMode;
  chefVersion: string;
  node: NodeFacts;
  registrations: Registration[];
}

export interface RankedEntry {
  className: string;
  source: 'core' | 'cookbook';
  locked: boolean;
  /** Has allow_cookbook_override: shown as a "preview" resource. */
  preview: boolean;
  matches: boolean;
  /** Why this entry stands below the one before it (empty for the first). */
  reason: string;
  /** Why it does or does not match the node. */
  match: string;
}

export interface ResolveResourceMapResult {
  resolved: Record<string, string | null>;
  ranked: Record<string, string[]>;
  warnings: { key: string; className: string; kind: 'collision' | 'deprecation'; message: string }[];
  rejected: { key: string; className: string; reason: string }[];
  errors: { key: string; className: string; reason: string }[];
  explanations: Record<string, RankedEntry[]>;
}

interface Entry {
  reg: Registration;
  locked: boolean;
  seq: number;
}

const LEVELS = ['block', 'platform_version', 'platform', 'platform_family', 'os', 'override'] as const;
type Level = (typeof LEVELS)[number];

const valueAt = (e: Entry, level: Level): unknown => e.reg.filters?.[level] || undefined;
const negated = (v: unknown) => (Array.isArray(v) ? v : [v]).some((x) => typeof x === 'string' && x.startsWith('!'));

/** Ruby's `<=>` on filter values: strings byte-wise, arrays element-wise, nil when incomparable. */
function rubyCompare(a: unknown, b: unknown): number | null {
  // UTF-8 byte order is code-point order.
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(compareCodePoints(a, b));
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = rubyCompare(a[i], b[i]);
      if (c !== 0) return c;
    }
    return Math.sign(a.length - b.length);
  }
  return null; // two blocks (distinct procs), a string against an array…
}

/** node_map.rb `compare_matcher_properties`: negative ranks `a` higher. */
function compareProperty(a: unknown, b: unknown): number | null {
  if (!a && b) return 1;
  if (!b && a) return -1;
  if (!a && !b) return 0;
  const an = negated(a);
  const bn = negated(b);
  if (an && !bn) return 1;
  if (bn && !an) return -1;
  return rubyCompare(a, b);
}

function compareEntries(a: Entry, b: Entry): { cmp: number | null; level: Level | null } {
  for (const level of LEVELS) {
    const cmp = compareProperty(valueAt(a, level), valueAt(b, level));
    if (cmp !== 0) return { cmp, level };
  }
  return { cmp: 0, level: null };
}

function describeRank(upper: Entry, lower: Entry): string {
  const { cmp, level } = compareEntries(lower, upper);
  if (level === null) return `same rank as ${upper.reg.className}: the later registration wins, so it stands below`;
  const a = valueAt(lower, level);
  const b = valueAt(upper, level);
  if (cmp === null) return `${level} filters cannot be compared (${JSON.stringify(b)} vs ${JSON.stringify(a)}): registered later, so placed after`;
  if (!a && b) return `${upper.reg.className} has a ${level} filter and this one has none`;
  if (negated(a) && !negated(b)) return `its ${level} filter is a block-list (${JSON.stringify(a)}), which ranks below an allow-list`;
  return `${level}: ${JSON.stringify(b)} sorts before ${JSON.stringify(a)}`;
}

function matchesList(value: string, filter: FilterValue | undefined): boolean {
  if (!filter) return true;
  const values = Array.isArray(filter) ? filter : [filter];
  const block = values.filter((v) => v.startsWith('!'));
  const allow = values.filter((v) => !v.startsWith('!'));
  if (block.some((v) => v.slice(1) === value)) return false;
  return allow.length === 0 || allow.some((v) => v === 'all' || v === ':all' || v === value);
}

function matchNode(e: Entry, node: NodeFacts): { ok: boolean; why: string } {
  const f = e.reg.filters ?? {};
  for (const attr of ['os', 'platform_family', 'platform'] as const) {
    if (!matchesList(node[attr], f[attr])) return { ok: false, why: `${attr} ${JSON.stringify(f[attr])} does not match '${node[attr]}'` };
  }
  if (f.platform_version) {
    const reqs = Array.isArray(f.platform_version) ? f.platform_version : [f.platform_version];
    if (reqs.length && !reqs.some((r) => satisfies(node.platform_version, r))) return { ok: false, why: `platform_version ${JSON.stringify(f.platform_version)} is not met by ${node.platform_version}` };
  }
  if (f.block && !f.block.result) return { ok: false, why: `block '${f.block.label}' returns false` };
  return { ok: true, why: Object.keys(f).length ? 'every filter matches' : 'no filters: matches every node' };
}

function overrideAllowed(option: boolean | string | undefined, chefVersion: string): boolean {
  if (typeof option === 'string') return satisfies(chefVersion, option);
  return option === true;
}

/**
 * Registers core entries (in order), locks the map, registers cookbook entries
 * (in order) under the mode's rules, and resolves every name for the node.
 */
export function resolveResourceMap(input: ResolveResourceMapInput): ResolveResourceMapResult {
  const map = new Map<string, Entry[]>();
  const result: ResolveResourceMapResult = { resolved: {}, ranked: {}, warnings: [], rejected: [], errors: [], explanations: {} };
  let seq = 0;
  const mapKey = (r: Registration) => (r.kind === 'provider' ? `provider:${r.key}` : r.key);

  const insert = (entry: Entry) => {
    const key = mapKey(entry.reg);
    const list = map.get(key) ?? [];
    let at = list.length;
    for (let i = 0; i < list.length; i++) {
      const { cmp } = compareEntries(entry, list[i]);
      if (cmp !== null && cmp <= 0) {
        at = i;
        break;
      }
    }
    list.splice(at, 0, entry);
    map.set(key, list);
  };

  const eligible = (r: Registration) => {
    // Chef 15+ has no allow_cookbook_override / __core_override__ keywords: passing either is Ruby's
    // ArgumentError (unknown keyword), so the registration never happens, for core and cookbooks alike.
    if (input.mode === 'chef15' && (r.allowCookbookOverride !== undefined || r.coreOverride !== undefined)) {
      // Ruby's message, as Chef 18.4.64 raises it from `provides` / `NodeMap#set`.
      const which = [r.allowCookbookOverride !== undefined ? ':allow_cookbook_override' : null, r.coreOverride !== undefined ? ':__core_override__' : null].filter(Boolean);
      result.errors.push({ key: mapKey(r), className: r.className, reason: `ArgumentError: unknown keyword${which.length > 1 ? 's' : ''}: ${which.join(', ')} (Chef 15 removed these options); not registered` });
      return false;
    }
    if (r.chefVersion && !satisfies(input.chefVersion, r.chefVersion)) {
      result.rejected.push({ key: mapKey(r), className: r.className, reason: 'chef_version' });
      return false;
    }
    return true;
  };

  for (const r of input.registrations) if (r.source === 'core' && eligible(r)) insert({ reg: r, locked: false, seq: seq++ });
  for (const list of map.values()) for (const e of list) e.locked = true;

  for (const r of input.registrations) {
    if (r.source !== 'cookbook' || !eligible(r)) continue;
    const key = mapKey(r);
    const existing = map.get(key) ?? [];
    const locked = existing.some((e) => e.locked);
    const allowed = r.coreOverride === true || existing.some((e) => overrideAllowed(e.reg.allowCookbookOverride, input.chefVersion));
    if (locked && !(input.mode !== 'chef15' && allowed)) {
      const core = existing.filter((e) => e.locked).map((e) => e.reg.className).join(', ');
      if (input.mode === 'rfc') {
        result.warnings.push({ key, className: r.className, kind: 'collision', message: `${r.className} tries to take '${r.key}', which core locks (${core}); refused. Core's allow_cookbook_override or the registration's __core_override__ would permit it.` });
        result.rejected.push({ key, className: r.className, reason: 'locked' });
        continue;
      }
      result.warnings.push(
        input.mode === 'chef14'
          ? { key, className: r.className, kind: 'deprecation', message: `CHEF-25: ${r.className} overrides the core resource '${r.key}' (${core}); mapped anyway in Chef 14, refused by the RFC design.` }
          : { key, className: r.className, kind: 'collision', message: `${r.className} reuses the core name '${r.key}' (${core}): mapped with a warning in Chef 15+, whatever the filters.` },
      );
    }
    insert({ reg: r, locked: false, seq: seq++ });
  }

  for (const [key, list] of map) {
    result.ranked[key] = list.map((e) => e.reg.className);
    const explained = list.map((e, i) => {
      const m = matchNode(e, input.node);
      return {
        className: e.reg.className,
        source: e.reg.source,
        locked: e.locked,
        preview: input.mode !== 'chef15' && !!e.reg.allowCookbookOverride,
        matches: m.ok,
        reason: i === 0 ? 'ranks first' : describeRank(list[i - 1], e),
        match: m.why,
      };
    });
    result.explanations[key] = explained;
    result.resolved[key] = explained.find((e) => e.matches)?.className ?? null;
  }
  return result;
}
