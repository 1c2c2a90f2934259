/**
 * Issue 28: guards judge the change, not the step. Pure: no I/O, no clock.
 *
 * INVARIANT (tested with generated move sequences, lib/domain/approval and
 * test/integration/approval-invariant.integration.test.ts on both databases):
 * for every sequence of moves s0 → s1 → … → sn of one policy in one
 * protected stage, each applied with the approvals its guard asked for, and
 * every i < n where s_i is a revision,
 *
 *     max(approvals asked for s_{i+1} … s_n) ≥ evaluateApprovalRules(s_i → s_n)
 *
 * (when s_n is nothing, the right side is the approvals of the removal from
 * s_i). No sequence of moves reaches, with fewer approvals, a result that one
 * move would need more for. It holds because every move is judged against
 * the stage's history, not only against what it runs at this instant:
 *
 * - the baseline is what the stage runs now or, when it runs nothing, the
 *   revision it last ran before the removal;
 * - a cookbook the target pins and the baseline lacks is judged against the
 *   version the stage last ran of it (so "remove nginx, then add nginx 12"
 *   is the major bump 11 → 12 it is); the change is judged against the plain
 *   baseline too, and the larger requirement wins (the history only ever adds
 *   strictness);
 * - removing the policy from a protected stage is a change: it needs at least
 *   one approval (and the stage's base number), plus every rule the removal
 *   triggers (any change, run list, attribute paths);
 * - when the history reaches a revision whose document was deleted before the
 *   baseline is known, the change cannot be judged: every rule applies.
 *
 * Every directional rule (a major bump, a newly claimed core resource) fires
 * on some step of any chain whose ends it fires on, because each step's
 * baseline is the previous value in the same chain; the symmetric ones (any
 * change, run list, attribute paths) fire on removal too.
 */
import type { PolicyLock } from '../lock/types';
import { evaluateApprovalRules, type ApprovalReason, type ApprovalRequirement, type ApprovalRule } from './rules';

/** One lock of the stage's history: the document, or 'deleted' when the revision is gone. */
export type HistoryLock = PolicyLock | 'deleted';

export interface MoveApprovalInput {
  /** What the stage runs now (null: nothing). */
  current: PolicyLock | null;
  /** What it would run (null: the policy is removed from the stage). */
  to: PolicyLock | null;
  /**
   * The revisions the stage ran of this policy, newest first, each once (the
   * current one first when there is one). It may stop early once
   * `baselineGaps` reports nothing missing; `complete` says it was not cut.
   */
  history: readonly HistoryLock[];
  /** True when `history` is the whole history (a cookbook not found in it was never run here). */
  complete: boolean;
  approvalsRequired: number;
  rules: readonly ApprovalRule[];
  coreResources: ReadonlySet<string>;
}

export interface MoveApproval extends ApprovalRequirement {
  /** The lock the rules judged the change against (null: the stage never ran the policy). */
  baseline: PolicyLock | null;
}

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

interface Baseline {
  base: PolicyLock | null;
  /** Cookbooks of the target still without a baseline version after the history given. */
  missing: string[];
  /** The history reached a deleted revision before the baseline was known. */
  unknown: boolean;
}

function buildBaseline(current: PolicyLock | null, to: PolicyLock | null, history: readonly HistoryLock[]): Baseline {
  let base: PolicyLock | null = current;
  let i = 0;
  if (!base) {
    const last = history[0];
    if (last === 'deleted') return { base: null, missing: [], unknown: true };
    if (last) {
      base = last;
      i = 1;
    }
  } else if (history[0] && history[0] !== 'deleted' && history[0].revision_id === current?.revision_id) {
    i = 1;
  }
  if (!to) return { base, missing: [], unknown: false };
  const lacking = Object.keys(to.cookbook_locks ?? {}).filter((n) => !base || !has(base.cookbook_locks ?? {}, n));
  if (!lacking.length) return { base, missing: [], unknown: false };
  const fill: PolicyLock['cookbook_locks'] = {};
  let missing = lacking;
  for (; i < history.length && missing.length; i++) {
    const h = history[i];
    if (h === 'deleted') return { base, missing, unknown: true };
    for (const n of missing) if (has(h.cookbook_locks ?? {}, n)) fill[n] = h.cookbook_locks[n];
    missing = missing.filter((n) => !has(fill, n));
  }
  if (Object.keys(fill).length) {
    const b = base ?? { name: to.name, revision_id: '', run_list: [], cookbook_locks: {}, default_attributes: {}, override_attributes: {} };
    base = { ...b, cookbook_locks: { ...b.cookbook_locks, ...fill } };
  }
  return { base, missing, unknown: false };
}

/** The target's cookbooks the history given does not settle yet (load more history while this is not empty). */
export function baselineGaps(current: PolicyLock | null, to: PolicyLock | null, history: readonly HistoryLock[]): string[] {
  const b = buildBaseline(current, to, history);
  return b.unknown ? [] : b.missing;
}

const plural = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

/** The approvals one move into a protected stage needs, judged against the stage's history (see the invariant above). */
export function evaluateMoveApproval(input: MoveApprovalInput): MoveApproval {
  const { current, to } = input;
  const name = to?.name ?? current?.name ?? '';
  if (!to) {
    if (!current) return { approvalsRequired: 0, reasons: [], baseline: null };
    const req = evaluateApprovalRules({ from: current, to: null, approvalsRequired: input.approvalsRequired, rules: input.rules, coreResources: input.coreResources });
    const n = Math.max(1, input.approvalsRequired);
    const reasons: ApprovalReason[] = [{ rule: 'removal', approvals: n, message: `${plural(n)}: removing ${name} from a protected stage is a change`, details: [] }, ...req.reasons.filter((r) => r.rule !== 'base')];
    reasons.sort((a, b) => b.approvals - a.approvals);
    return { approvalsRequired: Math.max(n, req.approvalsRequired), reasons, baseline: current };
  }
  const built = buildBaseline(current, to, input.history);
  // A history cut short while cookbooks still lack a baseline cannot be judged either.
  const b = !built.unknown && built.missing.length && !input.complete ? { ...built, unknown: true } : built;
  if (b.unknown) {
    const all = Math.max(1, input.approvalsRequired, ...input.rules.map((r) => r.approvals));
    const req = evaluateApprovalRules({ from: b.base, to, approvalsRequired: input.approvalsRequired, rules: input.rules, coreResources: input.coreResources });
    const reasons: ApprovalReason[] = [
      { rule: 'history', approvals: all, message: `${plural(all)}: a revision this stage ran of ${name} was deleted, so the change cannot be judged against what it ran; every rule applies`, details: [] },
      ...req.reasons,
    ];
    reasons.sort((a, c) => c.approvals - a.approvals);
    return { approvalsRequired: Math.max(all, req.approvalsRequired), reasons, baseline: b.base };
  }
  // The cookbook fill-in only ever adds strictness: the change is also judged against the plain baseline (what
  // the stage runs, or last ran), and the larger requirement wins, with the reasons of both.
  const plainBase = current ?? (input.history[0] && input.history[0] !== 'deleted' ? input.history[0] : null);
  const filled = evaluateApprovalRules({ from: b.base, to, approvalsRequired: input.approvalsRequired, rules: input.rules, coreResources: input.coreResources });
  if (plainBase === b.base) return { ...filled, baseline: b.base };
  const plain = evaluateApprovalRules({ from: plainBase, to, approvalsRequired: input.approvalsRequired, rules: input.rules, coreResources: input.coreResources });
  const reasons = [...filled.reasons];
  for (const r of plain.reasons) if (!reasons.some((x) => x.message === r.message)) reasons.push(r);
  reasons.sort((x, y) => y.approvals - x.approvals);
  const approvalsRequired = Math.max(filled.approvalsRequired, plain.approvalsRequired);
  return { approvalsRequired, reasons, baseline: plain.approvalsRequired > filled.approvalsRequired ? plainBase : b.base };
}
