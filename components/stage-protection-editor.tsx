'use client';

import { useState } from 'react';
import { APPROVAL_RULE_KINDS, MAX_APPROVALS, type ApprovalRule, type ApprovalRuleKind } from '@/lib/domain/approval';

const KIND_LABEL: Record<ApprovalRuleKind, string> = {
  any_change: 'Any change',
  major_bump: 'A major version bump of any cookbook',
  run_list_change: 'A run-list change',
  attribute_path: 'A change under attribute paths',
  core_resource_claim: 'A cookbook newly claiming a core Chef resource name',
};

const plural = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

/** What a rule means, in a sentence (the preview next to each rule). */
export function describeRule(r: ApprovalRule): string {
  if (r.approvals === 0) return 'Asks for nothing (0 approvals): it never raises the number.';
  switch (r.kind) {
    case 'any_change':
      return `Every change needs at least ${plural(r.approvals)}.`;
    case 'major_bump':
      return `A change that upgrades any cookbook to a new major version (e.g. nginx 11.6.2 → 12.0.0) needs ${plural(r.approvals)}.`;
    case 'run_list_change':
      return `A change that adds, removes or reorders run-list items (or named run lists) needs ${plural(r.approvals)}.`;
    case 'attribute_path': {
      const ps = r.patterns.filter(Boolean);
      return ps.length
        ? `A change to any attribute under ${ps.join(' or ')} needs ${plural(r.approvals)} ("*" is one path segment, "**" any number).`
        : 'Name at least one attribute path, e.g. security.*';
    }
    case 'core_resource_claim':
      return `A cookbook that starts to provide a resource name Chef itself defines (e.g. "package") needs ${plural(r.approvals)}.`;
  }
}

export interface ProtectionValue {
  enabled: boolean;
  approvalsRequired: number;
  rules: ApprovalRule[];
}

function blank(kind: ApprovalRuleKind): ApprovalRule {
  return kind === 'attribute_path' ? { kind, approvals: 2, patterns: ['security.*'] } : { kind, approvals: kind === 'any_change' ? 1 : 2 };
}

/** "Requires approval", the base number and the rules editor, with a preview of what each rule means. Saves as one write. */
export function StageProtectionEditor({ stage, initial, disabled, pending, onSave }: { stage: string; initial: ProtectionValue; disabled: boolean; pending: boolean; onSave: (v: ProtectionValue) => void }) {
  const [v, setV] = useState<ProtectionValue>(initial);
  const setRule = (i: number, r: ApprovalRule) => setV({ ...v, rules: v.rules.map((x, j) => (j === i ? r : x)) });
  const id = (s: string) => `prot-${stage}-${s}`;
  const dirty = JSON.stringify(v) !== JSON.stringify(initial);
  return (
    <form
      className="space-y-3"
      aria-label={`Approval settings of ${stage}`}
      onSubmit={(e) => {
        e.preventDefault();
        onSave(v);
      }}
      data-testid="protection-editor"
    >
      <label className="flex items-center gap-2 text-sm font-medium">
        <input type="checkbox" checked={v.enabled} disabled={disabled} onChange={(e) => setV({ ...v, enabled: e.target.checked })} data-testid="requires-approval" />
        {stage} requires approval
      </label>
      {v.enabled && (
        <>
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <label htmlFor={id('base')}>Approvals every change needs at least</label>
            <input id={id('base')} type="number" min={0} max={MAX_APPROVALS} className="input w-20" disabled={disabled} value={v.approvalsRequired} onChange={(e) => setV({ ...v, approvalsRequired: Number(e.target.value) })} />
            <span className="text-xs text-slate-600">(0: only the rules below decide)</span>
          </div>
          <fieldset className="space-y-2">
            <legend className="text-xs font-semibold uppercase text-slate-600">Rules (a change needs the largest number among the rules that match it)</legend>
            {v.rules.length === 0 && <p className="text-sm text-slate-600">No rules: every change needs the number above.</p>}
            <ol className="space-y-2">
              {v.rules.map((r, i) => (
                <li key={i} className="rounded border border-slate-200 p-2" data-testid="rule-row">
                  <div className="flex flex-wrap items-end gap-2">
                    <label className="flex flex-col text-xs font-medium text-slate-600">
                      Rule {i + 1}: when
                      <select className="input mt-1 w-auto" disabled={disabled} value={r.kind} onChange={(e) => setRule(i, { ...blank(e.target.value as ApprovalRuleKind), approvals: r.approvals })}>
                        {APPROVAL_RULE_KINDS.map((k) => (
                          <option key={k} value={k}>
                            {KIND_LABEL[k]}
                          </option>
                        ))}
                      </select>
                    </label>
                    {r.kind === 'attribute_path' && (
                      <label className="flex flex-col text-xs font-medium text-slate-600">
                        Paths (comma-separated globs)
                        <input className="input mono mt-1 w-64" disabled={disabled} value={r.patterns.join(', ')} onChange={(e) => setRule(i, { ...r, patterns: e.target.value.split(',').map((p) => p.trim()) })} />
                      </label>
                    )}
                    <label className="flex flex-col text-xs font-medium text-slate-600">
                      Approvals
                      <input type="number" min={0} max={MAX_APPROVALS} className="input mt-1 w-20" disabled={disabled} value={r.approvals} onChange={(e) => setRule(i, { ...r, approvals: Number(e.target.value) })} />
                    </label>
                    {!disabled && (
                      <button type="button" className="btn py-1 text-xs" onClick={() => setV({ ...v, rules: v.rules.filter((_, j) => j !== i) })}>
                        Remove<span className="sr-only"> rule {i + 1}</span>
                      </button>
                    )}
                  </div>
                  <p className="mt-1 text-sm text-slate-700" data-testid="rule-preview">
                    {describeRule(r)}
                  </p>
                </li>
              ))}
            </ol>
            {!disabled && (
              <button type="button" className="btn text-xs" onClick={() => setV({ ...v, rules: [...v.rules, blank('major_bump')] })}>
                Add a rule
              </button>
            )}
          </fieldset>
        </>
      )}
      {!disabled && (
        <div className="flex items-center gap-2">
          <button type="submit" className="btn btn-primary" disabled={!dirty || pending}>
            Save approval settings
          </button>
          {dirty && <span className="text-xs text-slate-600">Unsaved changes</span>}
        </div>
      )}
    </form>
  );
}
