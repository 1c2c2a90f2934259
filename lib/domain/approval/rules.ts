/**
 * Risk-weighted approval rules (issue 15): how many approvals a change into a
 * protected stage needs, computed from the semantic diff between what the
 * stage runs and what it would run. Pure: no I/O, no clock.
 *
 * The result is the MAXIMUM over the stage's base number and every rule that
 * applies (not the sum): a change that bumps a major version (2) and touches
 * `security.*` (2) needs 2 approvals, not 4. Every applying rule is reported
 * with its reason, strongest first.
 */
import { diffLocks, type LockDiff } from '../diff/diff';
import type { PolicyLock } from '../lock/types';

export const APPROVAL_RULE_KINDS = ['any_change', 'major_bump', 'run_list_change', 'attribute_path', 'core_resource_claim'] as const;
export type ApprovalRuleKind = (typeof APPROVAL_RULE_KINDS)[number];

export type ApprovalRule =
  | { kind: 'any_change'; approvals: number }
  | { kind: 'major_bump'; approvals: number }
  | { kind: 'run_list_change'; approvals: number }
  | { kind: 'attribute_path'; approvals: number; patterns: string[] }
  | { kind: 'core_resource_claim'; approvals: number };

export const MAX_APPROVALS = 10;

export interface ApprovalReason {
  /** base: the stage's number; removal / history: issue 28's move judgement (lib/domain/approval/move.ts). */
  rule: ApprovalRuleKind | 'base' | 'removal' | 'history';
  approvals: number;
  /** "2 approvals: nginx 11.6.2 → 12.0.0 is a major bump" */
  message: string;
  /** The individual findings behind the message (each cookbook, path, resource). */
  details: string[];
}

export interface ApprovalRequirement {
  approvalsRequired: number;
  /** Every rule (and the base number) that asks for at least one approval, strongest first. */
  reasons: ApprovalReason[];
}

export interface ApprovalInput {
  /** The stage's current lock (null: the stage runs no revision of the policy). */
  from: PolicyLock | null;
  /** The lock it would run (null: the policy is removed from the stage). */
  to: PolicyLock | null;
  /** The diff of `from` → `to`; computed when not given. */
  diff?: LockDiff;
  /** The stage's base number: every change needs at least this many approvals. */
  approvalsRequired: number;
  rules: readonly ApprovalRule[];
  /** Resource names Chef core registers (for `core_resource_claim`). */
  coreResources: ReadonlySet<string>;
}

const plural = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

function emptyLock(name: string): PolicyLock {
  return { name, revision_id: '', run_list: [], cookbook_locks: {}, default_attributes: {}, override_attributes: {} };
}

/**
 * Does an attribute path match a glob? Patterns are dot-separated: a literal
 * segment matches itself, `*` any one segment, `**` any number of segments
 * (zero included). A pattern matches a change when it matches the start of
 * the changed path (`security.*` covers `security.tls.min_version`), or when
 * the changed path is shorter and agrees with the pattern as far as it goes
 * (a change that replaced the whole `security` subtree touches every path
 * under it: `subtree` says the change's value on either side is an object).
 */
export function attributePathMatches(pattern: string, path: readonly string[], subtree = false): boolean {
  const segs = pattern.split('.').filter((s) => s.length > 0);
  const go = (i: number, j: number): boolean => {
    if (i === segs.length) return true; // pattern consumed: prefix match
    if (j === path.length) return subtree; // path ended first: only a replaced subtree covers the rest
    const s = segs[i];
    if (s === '**') return go(i + 1, j) || go(i, j + 1);
    if (s === '*' || s === path[j]) return go(i + 1, j + 1);
    return false;
  };
  if (!segs.length) return false;
  return go(0, 0);
}

/** Cookbooks that newly claim a core resource name: `provides` in `to` names it, and the same cookbook in `from` did not. */
export function newCoreClaims(from: PolicyLock | null, to: PolicyLock | null, core: ReadonlySet<string>): { cookbook: string; resource: string }[] {
  if (!to) return [];
  const out: { cookbook: string; resource: string }[] = [];
  for (const name of Object.keys(to.cookbook_locks ?? {}).sort()) {
    const provides = to.cookbook_locks[name]?.provides;
    if (!Array.isArray(provides)) continue;
    const before = from?.cookbook_locks?.[name]?.provides;
    const had = new Set(Array.isArray(before) ? before : []);
    for (const r of provides) if (typeof r === 'string' && core.has(r) && !had.has(r)) out.push({ cookbook: name, resource: r });
  }
  return out;
}

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const attrText = (path: readonly string[]) => path.join('.');

/** What one rule finds in a change: the details that make it apply (empty: it does not apply). */
function findings(rule: ApprovalRule, diff: LockDiff, input: ApprovalInput): string[] {
  switch (rule.kind) {
    case 'any_change':
      return diff.summary.total > 0 || diff.revisionId.changed ? ['any change'] : [];
    case 'major_bump':
      return diff.cookbooks.filter((c) => c.kind === 'upgraded' && c.level === 'major').map((c) => `${c.name} ${c.from!.version} → ${c.to!.version}`);
    case 'run_list_change': {
      const out: string[] = [];
      for (const c of diff.runList) out.push(`${c.item} ${c.kind}`);
      for (const n of diff.namedRunLists) out.push(`named run list '${n.name}' ${n.kind}`);
      return out;
    }
    case 'attribute_path': {
      const out: string[] = [];
      for (const a of diff.attributes) {
        const subtree = isObject(a.from) || isObject(a.to);
        const hit = rule.patterns.find((p) => attributePathMatches(p, a.path, subtree));
        if (hit) out.push(`${a.precedence} ${attrText(a.path)} ${a.kind} (matches ${hit})`);
      }
      return out;
    }
    case 'core_resource_claim':
      return newCoreClaims(input.from, input.to, input.coreResources).map((c) => `${c.cookbook} newly claims the core resource name '${c.resource}'`);
  }
}

function describe(rule: ApprovalRule, details: string[]): string {
  const n = plural(rule.approvals);
  const list = (xs: string[], max = 3) => (xs.length <= max ? xs.join(', ') : `${xs.slice(0, max).join(', ')} and ${xs.length - max} more`);
  switch (rule.kind) {
    case 'any_change':
      return `${n}: any change`;
    case 'major_bump':
      return `${n}: ${list(details)} ${details.length === 1 ? 'is a major bump' : 'are major bumps'}`;
    case 'run_list_change':
      return `${n}: the run list changes (${list(details)})`;
    case 'attribute_path':
      return `${n}: attributes under ${rule.patterns.join(', ')} change (${list(details)})`;
    case 'core_resource_claim':
      return `${n}: ${list(details)}`;
  }
}

/** The approvals a change needs and why. */
export function evaluateApprovalRules(input: ApprovalInput): ApprovalRequirement {
  const name = input.to?.name ?? input.from?.name ?? '';
  const diff = input.diff ?? diffLocks(input.from ?? emptyLock(name), input.to ?? emptyLock(name));
  const reasons: ApprovalReason[] = [];
  if (input.approvalsRequired > 0) {
    reasons.push({ rule: 'base', approvals: input.approvalsRequired, message: `${plural(input.approvalsRequired)}: every change into this stage`, details: [] });
  }
  for (const rule of input.rules) {
    if (rule.approvals <= 0) continue;
    const details = findings(rule, diff, input);
    if (details.length) reasons.push({ rule: rule.kind, approvals: rule.approvals, message: describe(rule, details), details });
  }
  // Strongest first; equal weights keep the stage's rule order (stable sort).
  reasons.sort((a, b) => b.approvals - a.approvals);
  const approvalsRequired = Math.min(MAX_APPROVALS, reasons.reduce((m, r) => Math.max(m, r.approvals), 0));
  return { approvalsRequired, reasons };
}

export interface RuleProblem {
  path: string;
  message: string;
}

const PATTERN = /^(\*\*|\*|[A-Za-z0-9_:@$-]+)(\.(\*\*|\*|[A-Za-z0-9_:@$-]+))*$/;

/**
 * Checks a stage's rules as submitted (JSON), with a problem per field and
 * JSON pointer. Unknown kinds, missing or out-of-range numbers and malformed
 * patterns are refused.
 */
export function validateApprovalRules(raw: unknown, base = '/rules'): { rules: ApprovalRule[]; problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const rules: ApprovalRule[] = [];
  if (!Array.isArray(raw)) return { rules, problems: [{ path: base, message: 'rules must be an array' }] };
  if (raw.length > 50) problems.push({ path: base, message: 'rules may hold at most 50 rules' });
  raw.slice(0, 50).forEach((r, i) => {
    const at = `${base}/${i}`;
    if (!r || typeof r !== 'object' || Array.isArray(r)) return problems.push({ path: at, message: `rule ${i} must be an object` });
    const o = r as Record<string, unknown>;
    if (!APPROVAL_RULE_KINDS.includes(o.kind as ApprovalRuleKind)) return problems.push({ path: `${at}/kind`, message: `rule ${i}: kind must be one of ${APPROVAL_RULE_KINDS.join(', ')}` });
    const approvals = o.approvals;
    if (typeof approvals !== 'number' || !Number.isInteger(approvals) || approvals < 0 || approvals > MAX_APPROVALS) {
      return problems.push({ path: `${at}/approvals`, message: `rule ${i}: approvals must be a whole number from 0 to ${MAX_APPROVALS}` });
    }
    const kind = o.kind as ApprovalRuleKind;
    if (kind === 'attribute_path') {
      const patterns = o.patterns;
      if (!Array.isArray(patterns) || !patterns.length || patterns.length > 20) return problems.push({ path: `${at}/patterns`, message: `rule ${i}: patterns must list 1 to 20 attribute path globs, e.g. "security.*"` });
      const bad = patterns.findIndex((p) => typeof p !== 'string' || p.length > 200 || !PATTERN.test(p));
      if (bad >= 0) return problems.push({ path: `${at}/patterns/${bad}`, message: `rule ${i}: pattern ${bad} must be dot-separated segments of letters, digits, '_', '-', ':', '@', '$', or '*' / '**', e.g. "security.*"` });
      rules.push({ kind, approvals, patterns: patterns as string[] });
    } else {
      rules.push({ kind, approvals } as ApprovalRule);
    }
  });
  return { rules, problems };
}

/** The rules the issue names, as the demo's production uses them. */
export const EXAMPLE_RULES: ApprovalRule[] = [
  { kind: 'any_change', approvals: 1 },
  { kind: 'major_bump', approvals: 2 },
  { kind: 'run_list_change', approvals: 2 },
  { kind: 'attribute_path', approvals: 2, patterns: ['security.*', 'authorization.*'] },
  { kind: 'core_resource_claim', approvals: 2 },
];
