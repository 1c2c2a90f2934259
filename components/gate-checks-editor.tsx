'use client';

import type { GateCheck } from '@/lib/domain/rollout/checks';

/**
 * Issue 47, Admin → Stages: the outside checks of a stage's promotion gate, edited as text fields and saved with the
 * rest of the rule (the one action and service behind PUT /api/v1/policy_groups/{group}/rollout, which validates
 * them and refuses a non-administrator: the server fetches these URLs). Exactly the fields:
 * http { name, url, expect_status?, timeout_ms? } and prometheus { name, url, query, min?, max?, timeout_ms? },
 * plus the explicit per-check allowance of a private target.
 */
interface CheckDraft {
  name: string;
  kind: 'http' | 'prometheus';
  url: string;
  /** http: statuses separated by commas or spaces ("200, 204"); empty: any 2xx. */
  expect_status: string;
  query: string;
  min: string;
  max: string;
  timeout_ms: string;
  allow_private_targets: boolean;
}

const EMPTY: CheckDraft = { name: '', kind: 'http', url: '', expect_status: '', query: '', min: '', max: '', timeout_ms: '', allow_private_targets: false };

export function checkDrafts(checks: GateCheck[]): CheckDraft[] {
  return checks.map((c) => ({
    ...EMPTY,
    name: c.name,
    kind: c.kind,
    url: c.url,
    timeout_ms: c.timeout_ms === undefined ? '' : String(c.timeout_ms),
    allow_private_targets: !!c.allow_private_targets,
    ...(c.kind === 'http' ? { expect_status: c.expect_status?.join(', ') ?? '' } : { query: c.query, min: c.min === undefined ? '' : String(c.min), max: c.max === undefined ? '' : String(c.max) }),
  }));
}

/** A typed number, or undefined when empty (the server names a field that is not a number: NaN is sent as null). */
const num = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s.trim()));

/** The checks as the rule's input takes them (`gate.checks`). */
export function checksInput(drafts: CheckDraft[]): GateCheck[] {
  return drafts.map((d) => {
    const common = { name: d.name, url: d.url, ...(num(d.timeout_ms) !== undefined ? { timeout_ms: num(d.timeout_ms)! } : {}), ...(d.allow_private_targets ? { allow_private_targets: true } : {}) };
    if (d.kind === 'prometheus') return { ...common, kind: 'prometheus', query: d.query, ...(num(d.min) !== undefined ? { min: num(d.min)! } : {}), ...(num(d.max) !== undefined ? { max: num(d.max)! } : {}) };
    const statuses = d.expect_status.split(/[\s,]+/).filter(Boolean).map(Number);
    return { ...common, kind: 'http', ...(statuses.length ? { expect_status: statuses } : {}) };
  });
}

function Field({ id, label, value, onChange, disabled, errors, hint, wide }: { id: string; label: string; value: string; onChange: (v: string) => void; disabled: boolean; errors?: string[]; hint?: string; wide?: boolean }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-600">
        {label}
      </label>
      <input
        id={id}
        className={`input ${wide ? 'w-80' : 'w-32'}`}
        value={value}
        disabled={disabled}
        aria-invalid={errors ? true : undefined}
        aria-describedby={[errors ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint && (
        <span id={`${id}-hint`} className="text-xs text-slate-600">
          {hint}
        </span>
      )}
      {errors && (
        <span id={`${id}-error`} className="text-xs text-red-700">
          {errors.join('; ')}
        </span>
      )}
    </div>
  );
}

export function GateChecksEditor({
  stage,
  checks,
  onChange,
  canEdit,
  disabled,
  fieldErrors,
}: {
  stage: string;
  checks: CheckDraft[];
  onChange: (next: CheckDraft[]) => void;
  /** An administrator (checks.manage): the server decides again on save. */
  canEdit: boolean;
  disabled: boolean;
  fieldErrors: Record<string, string[]>;
}) {
  const locked = disabled || !canEdit;
  const set = (i: number, patch: Partial<CheckDraft>) => onChange(checks.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  /** The server's errors of check i's field (and of its parts: expect_status.0 …). */
  const errs = (i: number, field: string) => {
    const key = `gate.checks.${i}.${field}`;
    const list = Object.entries(fieldErrors).flatMap(([k, ms]) => (k === key || k.startsWith(`${key}.`) ? ms : []));
    return list.length ? list : undefined;
  };
  const id = (i: number, s: string) => `rollout-${stage}-check-${i}-${s}`;
  const listErrors = fieldErrors['gate.checks'];
  return (
    <div className="space-y-2" data-testid="gate-checks" role="group" aria-label={`Outside checks of the gate into ${stage}`}>
      <p className="text-xs font-medium text-slate-700">Outside checks</p>
      <p className="text-xs text-slate-600" data-testid="gate-checks-rights">
        {canEdit
          ? 'The console fetches these URLs before every automatic or manual promotion into this stage. A check that times out, answers 5xx or returns no sample is inconclusive: the gate is unmet until it passes (a manager may override with a written reason).'
          : 'Only an administrator registers or changes outside checks: the console fetches their URLs from the server. You can change the rest of this rule.'}
      </p>
      {checks.length === 0 && <p className="text-xs text-slate-600">No outside checks.</p>}
      {checks.map((c, i) => (
        <fieldset key={i} className="rounded border border-slate-200 p-2" data-testid="gate-check" aria-label={`Check ${c.name || i + 1}`}>
          <div className="flex flex-wrap items-end gap-3">
            <Field id={id(i, 'name')} label="Name" value={c.name} disabled={locked} errors={errs(i, 'name')} onChange={(v) => set(i, { name: v })} />
            <div className="flex flex-col gap-1">
              <label htmlFor={id(i, 'kind')} className="text-xs font-medium text-slate-600">
                Kind
              </label>
              <select id={id(i, 'kind')} className="input" value={c.kind} disabled={locked} onChange={(e) => set(i, { kind: e.target.value as CheckDraft['kind'] })}>
                <option value="http">http</option>
                <option value="prometheus">prometheus</option>
              </select>
            </div>
            <Field id={id(i, 'url')} label="URL" wide value={c.url} disabled={locked} errors={errs(i, 'url')} onChange={(v) => set(i, { url: v })} />
            {c.kind === 'http' ? (
              <Field id={id(i, 'expect')} label="Expected statuses" hint="e.g. 200, 204; empty: any 2xx" value={c.expect_status} disabled={locked} errors={errs(i, 'expect_status')} onChange={(v) => set(i, { expect_status: v })} />
            ) : (
              <>
                <Field id={id(i, 'query')} label="Query (PromQL)" wide value={c.query} disabled={locked} errors={errs(i, 'query')} onChange={(v) => set(i, { query: v })} />
                <Field id={id(i, 'min')} label="At least (min)" value={c.min} disabled={locked} errors={errs(i, 'min')} onChange={(v) => set(i, { min: v })} />
                <Field id={id(i, 'max')} label="At most (max)" value={c.max} disabled={locked} errors={errs(i, 'max')} onChange={(v) => set(i, { max: v })} />
              </>
            )}
            <Field id={id(i, 'timeout')} label="Timeout (ms)" hint="100–30000; empty: 5000" value={c.timeout_ms} disabled={locked} errors={errs(i, 'timeout_ms')} onChange={(v) => set(i, { timeout_ms: v })} />
          </div>
          <div className="mt-2 flex flex-wrap items-center gap-3">
            <label className="flex items-center gap-2 text-xs">
              <input type="checkbox" checked={c.allow_private_targets} disabled={locked} onChange={(e) => set(i, { allow_private_targets: e.target.checked })} data-testid="gate-check-private" />
              Allow a loopback or private target (an explicit allowance, as for webhooks)
            </label>
            {errs(i, 'allow_private_targets') && <span className="text-xs text-red-700">{errs(i, 'allow_private_targets')!.join('; ')}</span>}
            {canEdit && (
              <button type="button" className="btn" disabled={disabled} onClick={() => onChange(checks.filter((_, j) => j !== i))}>
                Remove check {c.name || i + 1}
              </button>
            )}
          </div>
        </fieldset>
      ))}
      {listErrors && <p className="text-xs text-red-700">{listErrors.join('; ')}</p>}
      {canEdit && (
        <button type="button" className="btn" disabled={disabled || checks.length >= 10} onClick={() => onChange([...checks, { ...EMPTY, name: checks.length ? `check-${checks.length + 1}` : '' }])} data-testid="gate-check-add">
          Add an outside check
        </button>
      )}
    </div>
  );
}
