'use client';

/** Issue 30: a ringed rollout's page: steps, each step's nodes and their revision, and widen / pause / resume / roll back with confirmation. */
import Link from 'next/link';
import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { pauseRingAction, resumeRingAction, rollBackRingAction, widenRingAction } from '@/lib/actions/rings/ring-actions';
import { dateTime, shortId } from '@/lib/format';
import type { RingRolloutDto } from '@/lib/types/rings';
import { verdictWords } from '../guard-answer';
import { ConfirmDialog } from '../modal';
import { DataTable } from '@/components/data-table';

type Kind = 'widen' | 'pause' | 'resume' | 'rollback';

const STATUS_LABEL: Record<string, string> = {
  pending_approval: 'waiting for approval',
  active: 'active',
  paused: 'paused',
  completed: 'completed',
  rolled_back: 'rolled back',
  superseded: 'superseded',
};

export function RingRolloutView({ ring, canAct, canManage = false }: { ring: RingRolloutDto; canAct: boolean; canManage?: boolean }) {
  const [confirming, setConfirming] = useState<Kind | null>(null);
  const [reason, setReason] = useState('');
  // Issue 43: what stops widening now, said before the click; a manager may go ahead with a written reason.
  const [override, setOverride] = useState('');
  const blockers = ring.widen_blockers;
  const widenNeedsOverride = blockers.unconverged.length > 0 || !!blockers.freeze;
  const last = ring.step >= ring.steps.length - 2;
  const nextPercent = ring.steps[ring.step + 1];
  const mutation = useActionMutation(
    (kind: Kind) => {
      const input = { id: ring.id, expected_step: ring.step, reason: reason.trim() || undefined };
      if (kind === 'widen')
        return runAction(widenRingAction, {
          ...input,
          override_reason: (blockers.freeze && override.trim()) || undefined,
          gate_override_reason: (blockers.unconverged.length && override.trim()) || undefined,
        });
      if (kind === 'pause') return runAction(pauseRingAction, input);
      if (kind === 'resume') return runAction(resumeRingAction, input);
      return runAction(rollBackRingAction, input);
    },
    {
      success: (r: RingRolloutDto, kind) =>
        kind === 'widen'
          ? r.status === 'completed'
            ? `${shortId(r.to_revision_id)} is now ${r.stage}'s revision`
            : `Ring widened to ${r.percent}% (${r.health.ring_nodes} of ${r.plan.stage_nodes} node${r.plan.stage_nodes === 1 ? '' : 's'})`
          : kind === 'rollback'
            ? `Ring rolled back: ${(r.returned_nodes ?? []).length} node(s) return to ${shortId(r.from_revision_id)}`
            : `Ring ${r.status}`,
      then: () => {
        setConfirming(null);
        setReason('');
        setOverride('');
      },
      invalidate: [['rings', 'open']],
    },
  );
  const open = ring.status === 'active' || ring.status === 'paused';
  const h = ring.health;
  return (
    <div className="space-y-4">
      <div className="card p-4">
        <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
          <dt className="text-slate-600">Status</dt>
          <dd data-testid="ring-status">{STATUS_LABEL[ring.status] ?? ring.status}</dd>
          <dt className="text-slate-600">Ring</dt>
          <dd data-testid="ring-percent">{ring.step < 0 ? '—' : `${ring.percent}% (step ${ring.step + 1} of ${ring.steps.length})`}</dd>
          <dt className="text-slate-600">Stage revision</dt>
          <dd className="mono">
            <Link href={`/policies/${encodeURIComponent(ring.policy)}/revisions/${ring.from_revision_id}`} className="hover:underline">
              {shortId(ring.from_revision_id)}
            </Link>
          </dd>
          <dt className="text-slate-600">Ring revision</dt>
          <dd className="mono">
            <Link href={`/policies/${encodeURIComponent(ring.policy)}/revisions/${ring.to_revision_id}`} className="hover:underline">
              {shortId(ring.to_revision_id)}
            </Link>
          </dd>
          <dt className="text-slate-600">{ring.ended_facts ? 'Ring health at its end' : 'Ring health'}</dt>
          <dd data-testid="ring-health" data-ended={ring.ended_facts ? 'true' : 'false'}>
            {h.ring_nodes} in ring · {h.converged} converged · {h.failed} failed · {h.pending} not yet run · {h.missing} missing
            {ring.ended_facts && ring.ended_at ? ` (as it stood on ${dateTime(ring.ended_at)})` : ''}
          </dd>
          <dt className="text-slate-600">Widening</dt>
          <dd data-testid="ring-widening">
            {ring.plan.widening.replace(/^widening /, '')}
            {ring.next_widen_at ? ` (next: ${dateTime(ring.next_widen_at)})` : ''}
          </dd>
          <dt className="text-slate-600">On a failure</dt>
          <dd data-testid="ring-on-failure">{ring.rollback_on_failure ? 'rolled back automatically as soon as a ring node fails' : 'rolled back only by hand'}</dd>
          {ring.request_id && (
            <>
              <dt className="text-slate-600">Approval</dt>
              <dd>
                <Link href={`/requests/${ring.request_id}`} className="text-indigo-700 underline">
                  promotion request
                </Link>
                {ring.approved_by ? ` · approved by ${ring.approved_by}` : ring.status === 'pending_approval' ? ` · approving it ${ring.plan.words}` : ''}
              </dd>
            </>
          )}
          {ring.end_reason && (
            <>
              <dt className="text-slate-600">Ended</dt>
              <dd data-testid="ring-ended">
                {ring.ended_at ? `${dateTime(ring.ended_at)}: ` : ''}
                {ring.end_reason}
              </dd>
            </>
          )}
        </dl>
        {ring.verdict && (
          <div role="note" className="mt-3 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950" data-testid="ring-verdict">
            <p className="font-medium">
              Revision {shortId(ring.to_revision_id)} {verdictWords(ring.verdict)}.
            </p>
            {ring.verdict.failed_node_names.length > 0 && <p>Failed nodes: {ring.verdict.failed_node_names.join(', ')}.</p>}
            <p>
              {ring.verdict.overridden
                ? `Overridden by ${ring.verdict.overridden.by} on ${dateTime(ring.verdict.overridden.at)}: “${ring.verdict.overridden.reason}”.`
                : `Moving it into ${ring.stage} again (a promotion or a new ring) needs a written override from someone who manages ${ring.stage}; other stages are told of it before their promotions.`}
            </p>
          </div>
        )}
        {canAct && open && (
          <div className="mt-4 flex flex-wrap gap-2">
            {ring.status === 'active' && (
              <button type="button" className="btn btn-primary" onClick={() => setConfirming('widen')} data-testid="ring-widen">
                {last ? `Widen to 100% (make it ${ring.stage}'s revision)` : `Widen to ${nextPercent}%`}
              </button>
            )}
            {ring.status === 'active' && (
              <button type="button" className="btn" onClick={() => setConfirming('pause')} data-testid="ring-pause">
                Pause
              </button>
            )}
            {ring.status === 'paused' && (
              <button type="button" className="btn" onClick={() => setConfirming('resume')} data-testid="ring-resume">
                Resume
              </button>
            )}
            <button type="button" className="btn btn-danger" onClick={() => setConfirming('rollback')} data-testid="ring-rollback">
              Roll back
            </button>
          </div>
        )}
      </div>

      <ol className="space-y-3" aria-label="Steps">
        {(ring.step_nodes ?? []).map((s, i) => (
          <li key={i} className="card p-3" data-testid="ring-step" data-state={s.state}>
            <div className="mb-2 flex items-center gap-2 text-sm font-medium">
              <span>
                Step {i + 1}: {s.percent}%
              </span>
              <span className={`badge ${s.state === 'current' ? 'bg-indigo-50 text-indigo-700' : s.state === 'done' ? 'bg-emerald-50 text-emerald-700' : 'bg-slate-100 text-slate-600'}`}>{s.state}</span>
              <span className="text-xs font-normal text-slate-600">
                {s.nodes.length} node{s.nodes.length === 1 ? '' : 's'} added
              </span>
            </div>
            {s.nodes.length ? (
              <DataTable frame={null} className="text-sm" columns={['Node', 'Served', 'Last applied revision', 'On the ring revision']} rows={s.nodes}>
                {(n) => (
                  <tr key={n.name} data-testid="ring-node" data-node={n.name}>
                    <td>
                      <Link href={`/nodes/${encodeURIComponent(n.name)}`} className="text-indigo-700 underline underline-offset-2">
                        {n.name}
                      </Link>
                      {n.named && <span className="badge ml-1 bg-slate-100 text-slate-700">named</span>}
                    </td>
                    <td>{n.serves === 'ring' ? (ring.ended_facts ? 'ring revision until the end' : 'ring revision') : 'stage revision'}</td>
                    <td className="mono" data-testid="ring-node-revision">
                      {n.revision_id ? shortId(n.revision_id) : '—'}
                    </td>
                    <td data-testid="ring-node-standing">
                      {n.standing === 'failed' ? (
                        <span className="text-red-800">
                          failed{n.failed_resource ? <> at <span className="mono">{n.failed_resource}</span></> : ''}
                          {n.failed_cookbook ? ` (cookbook ${n.failed_cookbook})` : ''}
                        </span>
                      ) : n.standing === 'pending' ? (
                        'not yet run'
                      ) : (
                        n.standing
                      )}
                    </td>
                  </tr>
                )}
              </DataTable>
            ) : (
              <p className="text-xs text-slate-600">No node of the stage falls in this step yet.</p>
            )}
          </li>
        ))}
      </ol>

      {confirming && (
        <ConfirmDialog
          title={confirming === 'widen' ? (last ? `Make ${shortId(ring.to_revision_id)} ${ring.stage}'s revision?` : `Widen the ring to ${nextPercent}%?`) : confirming === 'rollback' ? 'Roll the ring back?' : confirming === 'pause' ? 'Pause the ring?' : 'Resume the ring?'}
          confirmLabel={confirming === 'widen' ? (widenNeedsOverride ? (canManage ? 'Widen anyway, with my reason' : 'Cannot widen yet') : 'Widen') : confirming === 'rollback' ? 'Roll back' : confirming === 'pause' ? 'Pause' : 'Resume'}
          danger={confirming === 'rollback'}
          pending={mutation.isPending}
          confirmDisabled={confirming === 'widen' && widenNeedsOverride && (!canManage || !override.trim())}
          onClose={() => setConfirming(null)}
          onConfirm={() => mutation.mutate(confirming)}
        >
          <p className="mb-2">
            {confirming === 'widen' &&
              (last
                ? `Every node of ${ring.stage} will run ${shortId(ring.to_revision_id)} of ${ring.policy} on its next chef-client run, and the stage's pointer moves (in its history).`
                : `More nodes of ${ring.stage} will run ${shortId(ring.to_revision_id)} on their next chef-client run.`)}
            {confirming === 'rollback' && `The ${h.ring_nodes} node(s) in the ring return to ${shortId(ring.from_revision_id)} on their next run; the stage's revision never moved.${h.failed ? ` The ring's ${h.failed} failed node(s) are recorded: revision ${shortId(ring.to_revision_id)} will go into ${ring.stage} again only with a manager's written override.` : ''}`}
            {confirming === 'pause' && 'The ring keeps its nodes but does not widen (by hand or after its soak time) until resumed.'}
            {confirming === 'resume' && 'The ring may widen again; its soak time starts over.'}
          </p>
          {confirming === 'widen' && widenNeedsOverride && (
            <div className="mb-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-950" data-testid="widen-answer">
              {blockers.unconverged.length > 0 && <p>The ring has not converged yet: {blockers.unconverged.join('; ')}.</p>}
              {blockers.freeze && (
                <p>
                  {ring.stage} is frozen until {dateTime(blockers.freeze.ends_at)}: {blockers.freeze.reason}.
                </p>
              )}
              <p>
                {canManage
                  ? `You manage ${ring.stage}: you may widen anyway, with a written reason (kept in the audit log).`
                  : `Only someone who manages ${ring.stage} may widen it now; otherwise wait for ${blockers.freeze ? 'the freeze to end' : "its nodes' next runs"}.`}
              </p>
              {canManage && (
                <>
                  <label htmlFor="ring-widen-override" className="mb-1 mt-2 block text-xs font-semibold uppercase">
                    Why widen now (required)
                  </label>
                  <textarea id="ring-widen-override" className="input h-14 text-slate-900" value={override} maxLength={1000} onChange={(e) => setOverride(e.target.value)} />
                </>
              )}
            </div>
          )}
          <label htmlFor="ring-reason" className="mb-1 block text-sm text-slate-700">
            Reason (optional, audited)
          </label>
          <input id="ring-reason" className="input" value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
        </ConfirmDialog>
      )}
    </div>
  );
}
