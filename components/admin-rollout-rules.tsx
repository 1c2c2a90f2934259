'use client';

import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { setStageRolloutRuleAction } from '@/lib/actions/admin/rollout-rule-actions';
import type { AdminRolloutRuleRow } from '@/lib/services/runs';
import { dateTime } from '@/lib/format';
import { checkDrafts, checksInput, GateChecksEditor } from './gate-checks-editor';

type Gate = AdminRolloutRuleRow['gate'];
type Rollback = AdminRolloutRuleRow['rollback'];
type AutoPromote = AdminRolloutRuleRow['auto_promote'];

function NumberField({ id, label, value, min, max, suffix, disabled, onChange, error }: { id: string; label: string; value: number; min: number; max: number; suffix?: string; disabled: boolean; onChange: (n: number) => void; error?: string[] }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-600">
        {label}
      </label>
      <span className="flex items-center gap-1">
        <input
          id={id}
          type="number"
          inputMode="numeric"
          className="input w-24"
          min={min}
          max={max}
          step={1}
          value={Number.isFinite(value) ? value : ''}
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) => onChange(e.target.value === '' ? NaN : Number(e.target.value))}
        />
        {suffix && <span className="text-xs text-slate-600">{suffix}</span>}
      </span>
      {error && (
        <span id={`${id}-error`} className="text-xs text-red-700">
          {error.join('; ')}
        </span>
      )}
    </div>
  );
}

/** One stage's gate and rollback rule form: saved as one write (audited, as PUT /api/v1/policy_groups/:stage/rollout). */
function RolloutRuleForm({ row }: { row: AdminRolloutRuleRow }) {
  const [gate, setGate] = useState<Gate>(row.gate);
  const [rollback, setRollback] = useState<Rollback>(row.rollback);
  const [auto, setAuto] = useState<AutoPromote>(row.auto_promote);
  const initialChecks = checkDrafts(row.gate.checks);
  const [checks, setChecks] = useState(initialChecks);
  const checksChanged = JSON.stringify(checks) !== JSON.stringify(initialChecks);
  const save = useActionMutation(
    (v: { gate: Gate; rollback: Rollback; auto: AutoPromote }) =>
      runAction(setStageRolloutRuleAction, {
        stage: row.stage,
        // The checks go only when edited (omitted: unchanged), so a manager saving the rest is never taken for changing them.
        gate: { enabled: v.gate.enabled, min_success_pct: v.gate.min_success_pct, min_nodes: v.gate.min_nodes, max_failure_pct: v.gate.max_failure_pct, soak_minutes: v.gate.soak_minutes, ...(checksChanged ? { checks: checksInput(checks) } : {}) },
        rollback: v.rollback,
        auto_promote: { enabled: v.auto.enabled, ...(v.auto.soak_minutes !== null && Number.isFinite(v.auto.soak_minutes) ? { soak_minutes: v.auto.soak_minutes } : {}) },
      }),
    {
      success: (r) => `${r.stage}: promotion gate ${r.gate.enabled ? 'on' : 'off'}, automatic promotion ${r.auto_promote.enabled ? 'on' : 'off'}, automatic rollback ${r.rollback.enabled ? 'on' : 'off'}`,
      errors: 'inline',
    },
  );
  const dirty = checksChanged || JSON.stringify({ gate, rollback, auto }) !== JSON.stringify({ gate: row.gate, rollback: row.rollback, auto: row.auto_promote });
  const disabled = !row.canManage || save.isPending;
  const fe = save.formErrors?.fieldErrors ?? {};
  const id = (s: string) => `rollout-${row.stage}-${s}`;
  const err = (k: string) => fe[k];
  return (
    <form
      className="space-y-4"
      noValidate
      aria-label={`Rollout rules of ${row.stage}`}
      data-testid="rollout-rule-form"
      data-stage={row.stage}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ gate, rollback, auto });
      }}
    >
      <fieldset className="space-y-2">
        <legend className="text-xs font-semibold uppercase text-slate-600">Promotion gate into {row.stage}</legend>
        {row.gate_from_stage ? (
          <>
            <label className="flex items-center gap-2 text-sm font-medium">
              <input type="checkbox" checked={gate.enabled} disabled={disabled} onChange={(e) => setGate({ ...gate, enabled: e.target.checked })} data-testid="gate-enabled" />
              Promote into {row.stage} only a revision that converged in {row.gate_from_stage}
            </label>
            <div className="flex flex-wrap gap-3">
              <NumberField id={id('gate-success')} label="Converged on at least (X)" suffix="% of nodes" value={gate.min_success_pct} min={0} max={100} disabled={disabled || !gate.enabled} onChange={(n) => setGate({ ...gate, min_success_pct: n })} error={err('gate.min_success_pct')} />
              <NumberField id={id('gate-nodes')} label="Nodes at least (N)" suffix="nodes" value={gate.min_nodes} min={0} max={100000} disabled={disabled || !gate.enabled} onChange={(n) => setGate({ ...gate, min_nodes: n })} error={err('gate.min_nodes')} />
              <NumberField id={id('gate-failures')} label="Failures at most (Y)" suffix="%" value={gate.max_failure_pct} min={0} max={100} disabled={disabled || !gate.enabled} onChange={(n) => setGate({ ...gate, max_failure_pct: n })} error={err('gate.max_failure_pct')} />
              <NumberField id={id('gate-soak')} label="For at least (T)" suffix="minutes" value={gate.soak_minutes} min={0} max={43200} disabled={disabled || !gate.enabled} onChange={(n) => setGate({ ...gate, soak_minutes: n })} error={err('gate.soak_minutes')} />
            </div>
            {gate.enabled && (
              <p className="text-xs text-slate-600" data-testid="gate-sentence">
                A revision moves into {row.stage} only after, in {row.gate_from_stage}, at least {gate.min_success_pct}% of at least {gate.min_nodes} node(s) converged it successfully, with no more than {gate.max_failure_pct}% failing, for at least{' '}
                {gate.soak_minutes} minute(s). Missing nodes are not counted. Someone who manages {row.stage} may override with a written reason.
              </p>
            )}
          </>
        ) : (
          <p className="text-sm text-slate-600">{row.stage} is the first stage: there is no stage before it to gate on.</p>
        )}
        {row.gate_from_stage && <GateChecksEditor stage={row.stage} checks={checks} onChange={setChecks} canEdit={row.canEditChecks} disabled={disabled} fieldErrors={fe} />}
      </fieldset>
      {row.gate_from_stage && (
        <fieldset className="space-y-2">
          <legend className="text-xs font-semibold uppercase text-slate-600">Automatic promotion into {row.stage}</legend>
          <label className="flex items-center gap-2 text-sm font-medium">
            <input type="checkbox" checked={auto.enabled} disabled={disabled} onChange={(e) => setAuto({ ...auto, enabled: e.target.checked })} data-testid="auto-promote-enabled" />
            Promote into {row.stage} by itself once the revision {row.gate_from_stage} runs meets the gate
          </label>
          <NumberField
            id={id('auto-soak')}
            label="And has soaked in the stage before for"
            suffix="minutes"
            value={auto.soak_minutes ?? 0}
            min={0}
            max={43200}
            disabled={disabled || !auto.enabled}
            onChange={(n) => setAuto({ ...auto, soak_minutes: n })}
            error={err('auto_promote.soak_minutes') ?? err('auto_promote.enabled')}
          />
          <p className="text-xs text-slate-600" data-testid="automation-state" data-state={row.automation.state}>
            {row.automation.state === 'held'
              ? `Held by ${row.automation.held!.by} since ${dateTime(row.automation.held!.at)}: ${row.automation.held!.reason}. Resume it on the stage's history page.`
              : row.automation.state === 'waiting'
                ? `Waiting: ${row.automation.waiting.map((w) => `${w.policy}: ${w.waiting_for}${w.until ? ` (until ${dateTime(w.until)})` : ''}`).join('; ')}`
                : row.automation.state === 'on'
                  ? 'On: the same guard as a person (freezes wait, bad or failed revisions never move, a protected stage gets a promotion request), as the system, with the evidence in the audit log.'
                  : 'Off.'}
          </p>
        </fieldset>
      )}
      <fieldset className="space-y-2">
        <legend className="text-xs font-semibold uppercase text-slate-600">Automatic rollback of {row.stage}</legend>
        <label className="flex items-center gap-2 text-sm font-medium">
          <input type="checkbox" checked={rollback.enabled} disabled={disabled} onChange={(e) => setRollback({ ...rollback, enabled: e.target.checked })} data-testid="rollback-enabled" />
          Move {row.stage} back to the revision it ran before when a change breaks nodes
        </label>
        <div className="flex flex-wrap gap-3">
          <NumberField id={id('rb-window')} label="Within (W)" suffix="minutes of a change" value={rollback.window_minutes} min={1} max={10080} disabled={disabled || !rollback.enabled} onChange={(n) => setRollback({ ...rollback, window_minutes: n })} error={err('rollback.window_minutes')} />
          <NumberField id={id('rb-pct')} label="At least (Y)" suffix="% of nodes failed" value={rollback.failure_pct} min={1} max={100} disabled={disabled || !rollback.enabled} onChange={(n) => setRollback({ ...rollback, failure_pct: n })} error={err('rollback.failure_pct')} />
          <NumberField id={id('rb-runs')} label="Reported by at least (N)" suffix="nodes" value={rollback.min_runs} min={1} max={100000} disabled={disabled || !rollback.enabled} onChange={(n) => setRollback({ ...rollback, min_runs: n })} error={err('rollback.min_runs')} />
        </div>
        {rollback.enabled && (
          <p className="text-xs text-slate-600" data-testid="rollback-sentence">
            If, within {rollback.window_minutes} minute(s) after a change, at least {rollback.failure_pct}% of at least {rollback.min_runs} node(s) that ran the new revision fail on it (each node counted once, by its latest run),{' '}
            {row.stage} moves back to the revision it ran before; the new one is recorded as failed in {row.stage} with the evidence (moving it there again needs a written override from someone who manages {row.stage}; other stages are told, not
            refused), and webhooks are told (rollout.rolled_back). Allowed without approval and during a freeze; the history says the rule did it.
          </p>
        )}
      </fieldset>
      {save.formErrors?.formError && (
        <p role="alert" className="text-sm text-red-700">
          {save.formErrors.formError}
        </p>
      )}
      <div className="flex items-center gap-3">
        <button type="submit" className="btn btn-primary" disabled={disabled || !dirty} data-testid="rollout-rule-save">
          {save.isPending ? 'Saving…' : `Save rules of ${row.stage}`}
        </button>
        {dirty && !save.isPending && (
          <button
            type="button"
            className="btn"
            onClick={() => {
              setGate(row.gate);
              setRollback(row.rollback);
              setAuto(row.auto_promote);
              setChecks(initialChecks);
            }}
          >
            Discard changes
          </button>
        )}
        {row.updated_at && (
          <span className="text-xs text-slate-600">
            Last changed {dateTime(row.updated_at)}
            {row.updated_by ? ` by ${row.updated_by}` : ''}
          </span>
        )}
      </div>
    </form>
  );
}

/** Admin → Stages, issue 26: per stage, the promotion gate into it and its automatic rollback rule. Only managers of a stage edit it. */
export function AdminRolloutRules({ rows }: { rows: AdminRolloutRuleRow[] }) {
  if (!rows.length) return null;
  return (
    <section aria-labelledby="rollout-rules-heading" className="mt-6 space-y-3">
      <h2 id="rollout-rules-heading" className="text-lg font-semibold">
        Promotion gates and automatic rollback
      </h2>
      <p className="text-sm text-slate-600">
        From chef-client&apos;s run reports: a gate lets a revision into a stage only once it converged in the stage before; a rollback rule undoes a change that breaks the stage&apos;s nodes. Both hold for every way of promoting (board,
        compare, bulk, cookbook, API, <span className="mono">chef push</span>).
      </p>
      {rows.map((r) => (
        <details key={`${r.stage}:${r.updated_at ?? ''}`} className="card p-4" data-testid="rollout-rules" data-stage={r.stage} open={r.gate.enabled || r.rollback.enabled}>
          <summary className="cursor-pointer font-semibold">
            {r.stage}
            <span className="ml-2 text-sm font-normal text-slate-600">
              {r.gate.enabled ? `gate: ≥ ${r.gate.min_success_pct}% of ≥ ${r.gate.min_nodes} node(s) in ${r.gate_from_stage}, ≤ ${r.gate.max_failure_pct}% failing, ${r.gate.soak_minutes} min` : 'no gate'} ·{' '}
              {r.rollback.enabled ? `rollback: ≥ ${r.rollback.failure_pct}% of ≥ ${r.rollback.min_runs} node(s) failing within ${r.rollback.window_minutes} min` : 'no automatic rollback'}
              {!r.canManage && ' · read-only (you do not manage this stage)'}
            </span>
          </summary>
          <div className="mt-3">
            <RolloutRuleForm row={r} />
          </div>
        </details>
      ))}
    </section>
  );
}
