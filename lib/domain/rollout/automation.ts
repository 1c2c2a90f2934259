/**
 * Issue 47: the state of a stage's automatic promotion as every reader shows it (the board, Admin → Stages,
 * GET /api/v1/policy_groups/:g/rollout): on, waiting (for what, until when), held (by whom, why), off. Pure.
 */

export type HoldSource = 'rollback' | 'promotion' | 'ring';

export interface AutomationWaitingDto {
  policy: string;
  revision_id: string;
  /** What it waits for, in words ("the gate: 1 of at least 2 node(s) in dev converged …", "the freeze of qa (release week)"). */
  waiting_for: string;
  /** When it expects to move (the end of a soak or a freeze), if known. */
  until: string | null;
  at: string;
}

export interface AutomationStateDto {
  state: 'off' | 'on' | 'waiting' | 'held';
  held: { at: string; by: string; reason: string; source: HoldSource } | null;
  waiting: AutomationWaitingDto[];
}

type StateRow = { autoPromoteEnabled: boolean; heldAt: Date | null; heldByEmail: string | null; heldReason: string | null; heldSource: string | null; autoWaiting: string };

/** A stage's automation state from its rule row. */
export function automationState(r: StateRow): AutomationStateDto {
  const held = r.heldAt ? { at: r.heldAt.toISOString(), by: r.heldByEmail ?? 'system', reason: r.heldReason ?? '', source: (r.heldSource ?? 'promotion') as HoldSource } : null;
  const waitingMap = JSON.parse(r.autoWaiting || '{}') as Record<string, Omit<AutomationWaitingDto, 'policy'>>;
  const waiting = Object.entries(waitingMap)
    .map(([policy, w]) => ({ policy, ...w }))
    .sort((a, b) => (a.policy < b.policy ? -1 : 1));
  if (!r.autoPromoteEnabled) return { state: 'off', held, waiting: [] };
  if (held) return { state: 'held', held, waiting };
  return { state: waiting.length ? 'waiting' : 'on', held: null, waiting };
}

