'use client';

/** Issue 30: a ringed rollout's page: steps, each step's nodes and their revision, and widen / pause / resume / roll back with confirmation. */
import Link from 'next/link';
import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { pauseRingAction, resumeRingAction, rollBackRingAction, widenRingAction } from '@/lib/actions/rings/ring-actions';
import { shortId } from '@/lib/format';
import type { RingRolloutDto } from '@/lib/types/rings';
import { ConfirmDialog } from '../modal';

type Kind = 'widen' | 'pause' | 'resume' | 'rollback';

const STATUS_LABEL: Record<string, string> = {
  pending_approval: 'waiting for approval',
  active: 'active',
  paused: 'paused',
  completed: 'completed',
  rolled_back: 'rolled back',
  superseded: 'superseded',
};

export function RingRolloutView({ ring, canAct }: { ring: RingRolloutDto; canAct: boolean }) {
  const [confirming, setConfirming] = useState<Kind | null>(null);
  const [reason, setReason] = useState('');
  const last = ring.step >= ring.steps.length - 2;
  const nextPercent = ring.steps[ring.step + 1];
  const mutation = useActionMutation(
    (kind: Kind) => {
      const input = { id: ring.id, expected_step: ring.step, reason: reason.trim() || undefined };
      if (kind === 'widen') return runAction(widenRingAction, input);
      if (kind === 'pause') return runAction(pauseRingAction, input);
      if (kind === 'resume') return runAction(resumeRingAction, input);
      return runAction(rollBackRingAction, input);
    },
    {
      success: (r: RingRolloutDto, kind) =>
        kind === 'widen' ? (r.status === 'completed' ? `${shortId(r.to_revision_id)} is now ${r.stage}'s revision` : `Ring widened to ${r.percent}%`) : kind === 'rollback' ? `Ring rolled back: ${(r.returned_nodes ?? []).length} node(s) return to ${shortId(r.from_revision_id)}` : `Ring ${r.status}`,
      then: () => {
        setConfirming(null);
        setReason('');
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
          <dt className="text-slate-600">Ring health</dt>
          <dd data-testid="ring-health">
            {h.ring_nodes} in ring · {h.converged} converged · {h.failed} failed · {h.pending} not yet run · {h.missing} missing
          </dd>
          <dt className="text-slate-600">Widening</dt>
          <dd>
            {ring.soak_minutes ? `automatic after ${ring.soak_minutes} min` : 'by hand'}
            {ring.gate_on_convergence ? ', once the ring converged' : ''}
            {ring.next_widen_at ? ` (next: ${new Date(ring.next_widen_at).toLocaleString()})` : ''}
          </dd>
          {ring.request_id && (
            <>
              <dt className="text-slate-600">Approval</dt>
              <dd>
                <Link href={`/requests/${ring.request_id}`} className="text-indigo-700 hover:underline">
                  promotion request
                </Link>
                {ring.approved_by ? ` · approved by ${ring.approved_by}` : ''}
              </dd>
            </>
          )}
          {ring.end_reason && (
            <>
              <dt className="text-slate-600">Ended</dt>
              <dd>{ring.end_reason}</dd>
            </>
          )}
        </dl>
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
              <table className="table text-sm">
                <thead>
                  <tr>
                    <th scope="col">Node</th>
                    <th scope="col">Served</th>
                    <th scope="col">Last applied revision</th>
                    <th scope="col">On the ring revision</th>
                  </tr>
                </thead>
                <tbody>
                  {s.nodes.map((n) => (
                    <tr key={n.name} data-testid="ring-node" data-node={n.name}>
                      <td>
                        <Link href={`/nodes/${encodeURIComponent(n.name)}`} className="hover:underline">
                          {n.name}
                        </Link>
                        {n.named && <span className="badge ml-1 bg-slate-100 text-slate-700">named</span>}
                      </td>
                      <td>{n.serves === 'ring' ? 'ring revision' : 'stage revision'}</td>
                      <td className="mono" data-testid="ring-node-revision">
                        {n.revision_id ? shortId(n.revision_id) : '—'}
                      </td>
                      <td>{n.standing}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="text-xs text-slate-600">No node of the stage falls in this step yet.</p>
            )}
          </li>
        ))}
      </ol>

      {confirming && (
        <ConfirmDialog
          title={confirming === 'widen' ? (last ? `Make ${shortId(ring.to_revision_id)} ${ring.stage}'s revision?` : `Widen the ring to ${nextPercent}%?`) : confirming === 'rollback' ? 'Roll the ring back?' : confirming === 'pause' ? 'Pause the ring?' : 'Resume the ring?'}
          confirmLabel={confirming === 'widen' ? 'Widen' : confirming === 'rollback' ? 'Roll back' : confirming === 'pause' ? 'Pause' : 'Resume'}
          danger={confirming === 'rollback'}
          pending={mutation.isPending}
          onClose={() => setConfirming(null)}
          onConfirm={() => mutation.mutate(confirming)}
        >
          <p className="mb-2">
            {confirming === 'widen' &&
              (last
                ? `Every node of ${ring.stage} will run ${shortId(ring.to_revision_id)} of ${ring.policy} on its next chef-client run, and the stage's pointer moves (in its history).`
                : `More nodes of ${ring.stage} will run ${shortId(ring.to_revision_id)} on their next chef-client run.`)}
            {confirming === 'rollback' && `The ${h.ring_nodes} node(s) in the ring return to ${shortId(ring.from_revision_id)} on their next run; the stage's revision never moved.`}
            {confirming === 'pause' && 'The ring keeps its nodes but does not widen (by hand or after its soak time) until resumed.'}
            {confirming === 'resume' && 'The ring may widen again; its soak time starts over.'}
          </p>
          <label htmlFor="ring-reason" className="mb-1 block text-sm text-slate-700">
            Reason (optional, audited)
          </label>
          <input id="ring-reason" className="input" value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
        </ConfirmDialog>
      )}
    </div>
  );
}
