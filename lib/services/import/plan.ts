/** Issue 42: one object's decision in an import (run-import.ts decides, the dry run reports, the run applies). */
export type Outcome = { kind: 'unchanged' } | { kind: 'imported'; detail: string } | { kind: 'conflict'; detail: string } | { kind: 'skipped'; detail: string };

/**
 * One object's decision. `imported`: the dry run reports `would`, the run calls `apply` (which answers what
 * happened: normally the same, or a refusal the guard gave). Others are reported as they are; `record` (run
 * only) remembers an object found equal or kept.
 */
export type Plan =
  | { kind: 'unchanged'; record?: () => Promise<void> }
  | { kind: 'conflict' | 'skipped'; detail: string; record?: () => Promise<void> }
  /** `listAs`: where the dry run lists it when the run's answer is not an import (a promotion request: skipped). */
  | { kind: 'imported'; would: string; apply: () => Promise<Outcome>; listAs?: 'skipped' };
