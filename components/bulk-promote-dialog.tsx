'use client';

import Link from 'next/link';
import { useQueries } from '@tanstack/react-query';
import { useState } from 'react';
import { isActionError, runAction } from '@/lib/actions/client';
import { promotePoliciesAction } from '@/lib/actions/promotion/promote-policies-action';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import type { ActionServerError } from '@/lib/actions/safe-action';
import type { BoardData } from '@/lib/types/board';
import { shortId } from '@/lib/format';
import { getJson, type DiffResponse } from './change-preview';
import { Field, FormAlert } from './form-field';
import { movePreviewQuery, outcomeLine } from './guard-answer';
import { Modal } from './modal';
import { Time } from './time';

const q = encodeURIComponent;
type NodeRow = { name: string; stale: boolean };

/**
 * Promote every differing policy from the previous stage into this one, all or
 * nothing. Each policy shows what it changes (cookbook and attribute counts, a
 * major-bump marker, takeovers, blast radius, a link to its diff); the confirm
 * waits until every one of them has loaded.
 */
export function BulkPromoteDialog({ board, from, to, onClose }: { board: BoardData; from: string; to: string; onClose: () => void }) {
  const candidates = board.policies
    .filter((p) => p.cells[from] && p.cells[from]!.revisionId !== p.cells[to]?.revisionId)
    .map((p) => ({ name: p.name, fromRev: p.cells[from]!.revisionId, toRev: p.cells[to]?.revisionId ?? null }));
  const [selected, setSelected] = useState(() => new Set(candidates.map((c) => c.name)));
  const [reason, setReason] = useState('');
  const diffs = useQueries({
    queries: candidates.map((c) => ({
      queryKey: ['diff', c.name, from, to],
      enabled: c.toRev !== null,
      retry: false,
      queryFn: () => getJson<DiffResponse>(`/api/v1/diff?policy=${q(c.name)}&from=${q(from)}&to=${q(to)}`),
    })),
  });
  const nodes = useQueries({
    queries: candidates.map((c) => ({ queryKey: ['nodes', to, c.name], retry: false, queryFn: () => getJson<{ nodes: NodeRow[] }>(`/api/v1/nodes?group=${q(to)}&policy=${q(c.name)}`) })),
  });
  // Issue 29: the guard's answer for each policy, before the click.
  const guards = useQueries({ queries: candidates.map((c) => movePreviewQuery({ policy: c.name, stage: to, kind: 'promote', from })) });
  const [freezeOverride, setFreezeOverride] = useState('');
  const [gateOverride, setGateOverride] = useState('');
  const [verdictOverride, setVerdictOverride] = useState('');
  const chosen = candidates.map((c, i) => ({ c, g: guards[i].data })).filter(({ c }) => selected.has(c.name));
  const needsFreeze = chosen.some(({ g }) => g?.needs.includes('freeze_override_reason'));
  const needsGate = chosen.some(({ g }) => g?.needs.includes('gate_override_reason'));
  // Issue 43: a revision that failed in `to` before moves there again only with a manager's written reason.
  const failedHere = chosen.filter(({ g }) => g?.needs.includes('verdict_override_reason'));
  const needsVerdict = failedHere.length > 0;
  const refused = chosen.filter(({ g }) => g?.outcome === 'blocked');
  const requesting = chosen.filter(({ g }) => g?.outcome === 'request');
  const moving = chosen.filter(({ g }) => g?.outcome === 'move');
  const guardsReady = chosen.every(({ g }) => !!g) && (!needsFreeze || !!freezeOverride.trim()) && (!needsGate || !!gateOverride.trim()) && (!needsVerdict || !!verdictOverride.trim()) && refused.length === 0;
  const frozenWindow = chosen.find(({ g }) => g?.freeze)?.g?.freeze ?? null;
  const guardLabel = [
    needsFreeze ? 'Override the freeze' : null,
    needsGate ? 'Override the gate' : null,
    needsVerdict ? `Override ${failedHere.length === 1 ? 'a failure' : `${failedHere.length} failures`} in ${to}` : null,
    moving.length ? `Move ${moving.length} now` : null,
    requesting.length ? `Request approvals for ${requesting.length}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  const guardErrors = candidates.filter((c, i) => selected.has(c.name) && guards[i].isError).length;
  const asking = chosen.some(({ g }) => !g) && !guardErrors;
  const allRefused = chosen.length > 0 && refused.length === chosen.length;
  const ready = candidates.every((c, i) => !selected.has(c.name) || ((c.toRev === null || diffs[i].isSuccess) && nodes[i].isSuccess));
  const failed = candidates.some((c, i) => selected.has(c.name) && (diffs[i].isError || nodes[i].isError));
  const mutation = useActionMutation(
    () =>
      runAction(promotePoliciesAction, {
        from,
        to,
        policies: [...selected],
        expected: Object.fromEntries(candidates.filter((c) => selected.has(c.name)).map((c) => [c.name, c.toRev])),
        reason: reason || undefined,
        freezeOverrideReason: (needsFreeze && freezeOverride.trim()) || undefined,
        gateOverrideReason: (needsGate && gateOverride.trim()) || undefined,
        verdictOverrideReason: (needsVerdict && verdictOverride.trim()) || undefined,
      }),
    {
      invalidate: [['board'], ['requests'], ['move-preview']],
      then: () => onClose(),
      success: (r) => {
        const first = r.promoted.find((p) => p.auditId)?.auditId;
        const requests = (r as { requests?: { id: string; policy: string; approvals_required: number }[] }).requests ?? [];
        if (requests.length > 0) {
          const moved = r.promoted.filter((p) => p.changed).length;
          return {
            message: `${to} is protected: ${requests.length} request${requests.length === 1 ? '' : 's'} created (${requests.map((x) => `${x.policy} needs ${x.approvals_required}`).join(', ')})${moved ? `; ${moved} moved without approval` : ''}`,
            description: <Link href={`/requests?view=mine&status=pending&stage=${q(to)}`}>Open your pending requests</Link>,
          };
        }
        return {
          message: `Promoted ${r.promoted.length} polic${r.promoted.length === 1 ? 'y' : 'ies'} from ${from} to ${to}`,
          description: first ? <Link href={`/audit?focus=${first}&action=pointer.promote&stage=${q(to)}`}>View the audit entries</Link> : 'Nothing changed.',
        };
      },
      errors: 'inline',
    },
  );
  const error = mutation.error;
  const stale = isActionError(error) && error.code === 'conflict';
  const totalNodes = candidates.reduce((n, c, i) => n + (selected.has(c.name) ? (nodes[i].data?.nodes.length ?? 0) : 0), 0);
  return (
    <Modal title={`Promote differing policies: ${from} → ${to}`} onClose={onClose} wide>
      <div className="space-y-3" data-testid="bulk-promote-dialog">
        {candidates.length === 0 ? (
          <p className="text-slate-700">Every policy in {from} already runs the same revision in {to}.</p>
        ) : (
          <>
            <p className="text-slate-700">All selected policies move together in one transaction: if any of them changed since you looked, none moves.</p>
            <ul className="max-h-96 divide-y divide-slate-100 overflow-y-auto rounded border border-slate-200" aria-label="Policies to promote" tabIndex={0}>
              {candidates.map((c, i) => {
                const d = diffs[i].data;
                const s = d?.summary;
                const n = nodes[i].data?.nodes;
                const attrs = d ? d.attributes.length : 0;
                const cbs = d ? d.cookbooks.length : 0;
                return (
                  <li key={c.name} className="px-3 py-2" data-policy={c.name}>
                    <div className="flex flex-wrap items-center gap-3">
                      <input
                        id={`bulk-${c.name}`}
                        type="checkbox"
                        checked={selected.has(c.name)}
                        onChange={(e) => {
                          const next = new Set(selected);
                          if (e.target.checked) next.add(c.name);
                          else next.delete(c.name);
                          setSelected(next);
                        }}
                      />
                      <label htmlFor={`bulk-${c.name}`} className="font-medium">
                        {c.name}
                      </label>
                      <span className="mono text-slate-600">
                        {shortId(c.toRev)} → {shortId(c.fromRev)}
                      </span>
                      {s && s.cookbooks.major > 0 && (
                        <span className="badge bg-amber-100 text-amber-900 ring-1 ring-amber-400" data-testid="major-bump">
                          major bump
                        </span>
                      )}
                      <Link className="ml-auto text-xs text-indigo-700 underline" href={`/compare?policy=${q(c.name)}&from=${q(from)}&to=${q(to)}`}>
                        Diff<span className="sr-only"> of {c.name}</span>
                      </Link>
                    </div>
                    <div className="mt-0.5 pl-7 text-xs text-slate-700" data-testid="bulk-counts">
                      {c.toRev === null ? (
                        `new in ${to}`
                      ) : diffs[i].isError ? (
                        <span className="text-red-700">Diff failed: {(diffs[i].error as Error).message}</span>
                      ) : !s ? (
                        'Loading…'
                      ) : (
                        `${cbs} cookbook change${cbs === 1 ? '' : 's'}${s.cookbooks.major ? ` (${s.cookbooks.major} major)` : ''}, ${attrs} attribute change${attrs === 1 ? '' : 's'}`
                      )}
                      {' · '}
                      {nodes[i].isError ? <span className="text-red-700">nodes could not be counted</span> : n ? `${n.length} node${n.length === 1 ? '' : 's'} in ${to}` : 'counting nodes…'}
                    </div>
                    <p className={`mt-0.5 pl-7 text-xs ${guards[i].data?.outcome === 'blocked' ? 'text-red-700' : guards[i].data?.outcome === 'request' ? 'text-amber-900' : 'text-slate-700'}`} data-testid="bulk-guard" data-outcome={guards[i].data?.outcome ?? 'pending'}>
                      {guards[i].isError ? `The guard could not be asked: ${(guards[i].error as Error).message}` : guards[i].data ? `On confirm: ${outcomeLine(guards[i].data)}` : 'Asking the guard…'}
                    </p>
                    {d && d.takeovers.length > 0 && (
                      <p className="mt-1 pl-7 text-xs text-amber-900" data-testid="bulk-takeover">
                        ⚠ Takes over core resources:{' '}
                        {d.takeovers.map((t) => `${t.cookbook} provides ${t.resource}`).join('; ')}.{' '}
                        <Link className="underline" href={`/resource-map?cookbook=${q(d.takeovers[0].cookbook)}&resource=${q(d.takeovers[0].resource)}`}>
                          Explore
                        </Link>
                      </p>
                    )}
                  </li>
                );
              })}
            </ul>
            <p className="text-slate-700" data-testid="bulk-blast-radius">
              Blast radius: {ready ? `${totalNodes} node${totalNodes === 1 ? '' : 's'} in ${to} run the selected policies.` : 'counting…'}
            </p>
            {frozenWindow && (
              <div className="rounded-md border border-sky-300 bg-sky-50 p-3 text-sky-950" data-testid="bulk-freeze">
                <p>
                  {to} is frozen until <Time iso={frozenWindow.ends_at} />: {frozenWindow.reason}.{' '}
                  {frozenWindow.may_override ? 'You manage it and may override with a written reason.' : 'Only someone who manages it may override.'}
                </p>
                {needsFreeze && (
                  <>
                    <label htmlFor="bulk-freeze-override" className="mb-1 mt-1 block text-xs font-semibold uppercase">
                      Override the freeze: reason (required, audited)
                    </label>
                    <textarea id="bulk-freeze-override" className="input h-14" value={freezeOverride} onChange={(e) => setFreezeOverride(e.target.value)} maxLength={1000} />
                  </>
                )}
              </div>
            )}
            {needsGate && (
              <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-950">
                <label htmlFor="bulk-gate-override" className="mb-1 block text-xs font-semibold uppercase">
                  Override the promotion gate: reason (required, audited)
                </label>
                <textarea id="bulk-gate-override" className="input h-14" value={gateOverride} onChange={(e) => setGateOverride(e.target.value)} maxLength={1000} />
              </div>
            )}
            {needsVerdict && (
              <div className="rounded-md border border-red-300 bg-red-50 p-3 text-red-950" data-testid="bulk-verdict">
                <p className="mb-1">
                  {failedHere.map(({ c }) => c.name).join(', ')} failed in {to} before (see each line above). You manage {to}: they move there again only with your written reason.
                </p>
                <label htmlFor="bulk-verdict-override" className="mb-1 block text-xs font-semibold uppercase">
                  Move them into {to} again anyway: reason (required, audited)
                </label>
                <textarea id="bulk-verdict-override" className="input h-14" value={verdictOverride} onChange={(e) => setVerdictOverride(e.target.value)} maxLength={1000} />
              </div>
            )}
            {refused.length > 0 && (
              <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800" data-testid="bulk-refused" data-all={allRefused ? 'true' : 'false'}>
                {allRefused
                  ? `The guard refuses ${chosen.length === 1 ? `${chosen[0].c.name}, the only selected policy` : `all ${chosen.length} selected policies`}: nothing can be promoted into ${to} from here now (each row says why).`
                  : `The guard refuses ${refused.map(({ c }) => c.name).join(', ')}: untick ${refused.length === 1 ? 'it' : 'them'} to promote the other ${chosen.length - refused.length} (all or nothing).`}
              </p>
            )}
            {failed && (
              <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
                <p>Some diffs could not be loaded: untick those policies or retry.</p>
                <button
                  type="button"
                  className="btn mt-2"
                  onClick={() => {
                    diffs.forEach((d) => d.isError && d.refetch());
                    nodes.forEach((n) => n.isError && n.refetch());
                  }}
                >
                  Retry
                </button>
              </div>
            )}
            <Field label={<span className="font-semibold uppercase">Reason (optional)</span>} name="reason" errors={mutation.formErrors}>
              {(c) => <textarea {...c} className="input h-14" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />}
            </Field>
          </>
        )}
        {error && (
          <FormAlert errors={mutation.formErrors && { ...mutation.formErrors, formError: mutation.formErrors.formError && (stale ? `${mutation.formErrors.formError} Nothing was promoted.` : `The promotion was refused. ${mutation.formErrors.formError}`) }} fields={['reason']} />
        )}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn btn-primary" disabled={!selected.size || !ready || !guardsReady || stale || mutation.isPending} onClick={() => mutation.mutate()} data-testid="bulk-confirm">
            {mutation.isPending
              ? 'Promoting…'
              : !selected.size
                ? `Select policies to promote to ${to}`
                : allRefused
                  ? `Refused — the guard refuses ${chosen.length === 1 ? 'it' : `all ${chosen.length}`}`
                  : refused.length
                    ? `Untick the ${refused.length} refused — Promote ${selected.size - refused.length} to ${to}`
                    : guardErrors
                      ? `The guard could not be asked — Promote ${selected.size} to ${to}`
                      : asking
                        ? `Asking the guard… — Promote ${selected.size} to ${to}`
                        : `${guardLabel || 'Confirm'} — Promote ${selected.size} to ${to}`}
          </button>
        </div>
      </div>
    </Modal>
  );
}
