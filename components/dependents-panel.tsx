'use client';

import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage, runAction } from '@/lib/actions/client';
import { promoteWithDependentsAction, rebuildDependentsAction } from '@/lib/actions/dependents/dependents-actions';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { shortId } from '@/lib/format';
import type { DependentsDto, PromoteWithDependentsDto, ProvenanceDto, RebuildDependentsDto, RebuildItemDto } from '@/lib/types/dependents';
import { Modal } from './modal';
import { RequestCreatedPanel, requestOf, type CreatedRequest } from './promotion-outcome';

const q = encodeURIComponent;

/** "from base 1a2b3c4d5e via include" (or "via mid → include"): where a rebuilt dependent's change comes from. */
export function provenanceWords(p: ProvenanceDto): string {
  return `from ${p.policy} ${shortId(p.revision_id)} via ${p.via.length ? `${p.via.join(' → ')} → include` : 'include'}`;
}

const STATUS_STYLE: Record<RebuildItemDto['status'], string> = {
  rebuilt: 'bg-emerald-50 text-emerald-800',
  unchanged: 'bg-slate-100 text-slate-700',
  conflict: 'bg-rose-50 text-rose-800',
  blocked: 'bg-rose-50 text-rose-800',
  pinned: 'bg-slate-100 text-slate-700',
};

export interface StageDependents {
  data: DependentsDto;
  /** The viewer may promote into this stage (rebuild writes there). */
  canPromote: boolean;
  /** The viewer may promote into the next stage. */
  canPromoteNext: boolean;
}

/** Issue 48: the policy page's dependents, per stage, with Rebuild (preview first) and Promote all. */
export function DependentsPanel({ policy, stages }: { policy: string; stages: StageDependents[] }) {
  const [rebuilding, setRebuilding] = useState<string | null>(null);
  const [promoting, setPromoting] = useState<{ from: string; to: string } | null>(null);
  return (
    <section id="dependents" className="mt-6 space-y-4" aria-labelledby="dependents-heading">
      <h2 id="dependents-heading" className="text-lg font-semibold">
        Dependents
      </h2>
      {!stages.length && <p className="text-sm text-slate-600">No policy includes {policy} in any stage you can see.</p>}
      {stages.map(({ data, canPromote, canPromoteNext }) => (
        <div key={data.stage} className="card p-4" data-testid="dependents-stage" data-stage={data.stage}>
          <div className="mb-2 flex flex-wrap items-center gap-2">
            <h3 className="font-medium">
              In {data.stage}
              {data.revision_id ? (
                <span className="text-slate-600">
                  {' '}
                  (runs {policy} <span className="mono">{shortId(data.revision_id)}</span>)
                </span>
              ) : (
                <span className="text-slate-600"> ({policy} is not in {data.stage})</span>
              )}
            </h3>
            {data.older > 0 && (
              <span className="badge bg-amber-50 text-amber-800" data-testid="older-count">
                {data.older} dependent{data.older === 1 ? '' : 's'} carr{data.older === 1 ? 'ies' : 'y'} an older {policy}
              </span>
            )}
            <div className="ml-auto flex gap-2">
              {canPromote && data.older > 0 && data.revision_id && (
                <button type="button" className="btn" onClick={() => setRebuilding(data.stage)}>
                  Rebuild dependents…
                </button>
              )}
              {canPromoteNext && data.next_stage && data.revision_id && (
                <button type="button" className="btn" onClick={() => setPromoting({ from: data.stage, to: data.next_stage! })}>
                  Promote all to {data.next_stage}…
                </button>
              )}
            </div>
          </div>
          <table className="table" data-testid="dependents-table">
            <thead>
              <tr>
                <th>Policy</th>
                <th>Its revision</th>
                <th>Includes {policy}</th>
                <th>Carries</th>
                <th>From</th>
              </tr>
            </thead>
            <tbody>
              {data.dependents.map((d) => (
                <tr key={d.policy} data-policy={d.policy} data-current={String(d.current)}>
                  <td>
                    <Link className="text-indigo-700 underline-offset-2 hover:underline" href={`/policies/${q(d.policy)}`}>
                      {d.policy}
                    </Link>
                  </td>
                  <td className="mono">{shortId(d.revision_id)}</td>
                  <td>{d.carries.map((c) => (c.via.length ? `via ${c.via.join(' → ')}` : 'directly')).filter((v, i, a) => a.indexOf(v) === i).join('; ')}</td>
                  <td>
                    {d.carries.map((c, i) => (
                      <div key={i}>
                        <span className="mono">{shortId(c.revision_id)}</span>{' '}
                        {c.current ? <span className="text-emerald-800">(the one {data.stage} runs)</span> : <span className="font-medium text-amber-800">(older)</span>}
                      </div>
                    ))}
                  </td>
                  <td className="text-xs text-slate-600">
                    {d.carries.map((c, i) => (
                      <div key={i}>
                        include &quot;{c.include_name}&quot;{typeof c.source.policy_group === 'string' ? `, policy_group ${c.source.policy_group}` : typeof c.source.policy_revision_id === 'string' ? ', pinned by revision id' : ''}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
              {!data.dependents.length && (
                <tr>
                  <td colSpan={5} className="text-slate-600">
                    No policy in {data.stage} includes {policy}.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      ))}
      {rebuilding && <RebuildDialog policy={policy} stage={rebuilding} onClose={() => setRebuilding(null)} />}
      {promoting && <PromoteAllDialog policy={policy} from={promoting.from} to={promoting.to} onClose={() => setPromoting(null)} />}
    </section>
  );
}

function RebuildItem({ item }: { item: RebuildItemDto }) {
  return (
    <li className="rounded border border-slate-200 p-3" data-testid="rebuild-item" data-policy={item.policy} data-status={item.status}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{item.policy}</span>
        <span className={`badge ${STATUS_STYLE[item.status]}`}>{item.status}</span>
        {item.to_revision_id && (
          <span className="mono text-xs text-slate-600">
            {shortId(item.from_revision_id)} → {shortId(item.to_revision_id)}
          </span>
        )}
      </div>
      <p className="mt-1 text-sm text-slate-700">{item.message}</p>
      {item.changes.length > 0 && (
        <ul className="mt-2 space-y-0.5 text-sm" aria-label={`What ${item.policy} gets`}>
          {item.changes.map((c, i) => (
            <li key={i}>
              <span className="text-slate-600">{c.kind.replace(/_/g, ' ')}:</span> {c.text}
              {c.from && <span className="text-slate-600"> — {provenanceWords(c.from)}</span>}
            </li>
          ))}
        </ul>
      )}
      {item.conflicts.length > 0 && (
        <ul className="mt-2 space-y-0.5 text-sm text-rose-800" aria-label={`Conflicts of ${item.policy}`} data-testid="rebuild-conflicts">
          {item.conflicts.map((c, i) => (
            <li key={i}>{c.message}</li>
          ))}
        </ul>
      )}
      {item.problems.length > 0 && (
        <ul className="mt-2 space-y-0.5 text-sm text-rose-800">
          {item.problems.map((p, i) => (
            <li key={i}>{p}</li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** Rebuild with a preview: every dependent's diff, provenance and conflicts before anything is written. */
function RebuildDialog({ policy, stage, onClose }: { policy: string; stage: string; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [created, setCreated] = useState<CreatedRequest | null>(null);
  const preview = useQuery({
    queryKey: ['rebuild-dependents', stage, policy],
    retry: false,
    queryFn: () => runAction(rebuildDependentsAction, { stage, policy, dryRun: true }) as Promise<RebuildDependentsDto>,
  });
  const p = preview.data;
  const ready = p?.rebuilds.filter((r) => r.status === 'rebuilt') ?? [];
  const blocked = p?.guard?.outcome === 'blocked';
  const confirm = useActionMutation((vars: { expected: Record<string, string | null>; reason: string }) => runAction(rebuildDependentsAction, { stage, policy, expected: vars.expected, reason: vars.reason || undefined }), {
    success: (r) => (requestOf(r) ? null : `${r.written} dependent${r.written === 1 ? '' : 's'} of ${policy} rebuilt and moved in ${stage}`),
    then: (r) => {
      const req = requestOf(r);
      if (req) setCreated(req);
      else onClose();
    },
  });
  return (
    <Modal title={`Rebuild the dependents of ${policy} in ${stage}`} onClose={onClose} wide description={`Each dependent gets ${policy} as ${stage} runs it, as chef-cli's chef update of that include would; nothing else is re-solved.`}>
      {created ? (
        <RequestCreatedPanel request={created} stage={stage} onClose={onClose} />
      ) : (
        <div className="space-y-3">
          {preview.isPending && <p className="text-sm text-slate-600">Computing every rebuild…</p>}
          {preview.isError && <p className="text-sm text-rose-800">{errorMessage(preview.error)}</p>}
          {p && (
            <>
              {p.caused_by && (
                <p className="text-sm text-slate-700">
                  Following {policy} {shortId(p.caused_by.from_revision_id)} → {shortId(p.caused_by.to_revision_id)}
                  {p.caused_by.by ? ` (moved by ${p.caused_by.by})` : ''}.
                </p>
              )}
              <ul className="max-h-[50vh] space-y-2 overflow-y-auto" aria-label="Rebuild preview" data-testid="rebuild-preview">
                {p.rebuilds.map((r) => (
                  <RebuildItem key={r.policy} item={r} />
                ))}
              </ul>
              {p.guard && (
                <div className={`rounded p-2 text-sm ${blocked ? 'bg-rose-50 text-rose-900' : 'bg-slate-50 text-slate-800'}`} data-testid="rebuild-guard">
                  {p.guard.summary}
                </div>
              )}
              <div>
                <label htmlFor="rebuild-reason" className="block text-xs font-medium text-slate-600">
                  Reason (optional)
                </label>
                <input id="rebuild-reason" className="input" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
              </div>
            </>
          )}
          <div className="flex justify-end gap-2">
            <button type="button" className="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="btn btn-primary" disabled={!p || !ready.length || blocked || confirm.isPending} onClick={() => p && confirm.mutate({ expected: p.expected, reason })}>
              {ready.length ? (p?.guard?.outcome === 'request' ? `Rebuild ${ready.length} and request approval` : `Rebuild ${ready.length} and move them into ${stage}`) : 'Nothing to rebuild'}
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}

/** The included policy and its dependents into the next stage together: one guard answer, one action. */
function PromoteAllDialog({ policy, from, to, onClose }: { policy: string; from: string; to: string; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [created, setCreated] = useState<CreatedRequest | null>(null);
  const preview = useQuery({
    queryKey: ['promote-with-dependents', from, to, policy],
    retry: false,
    queryFn: () => runAction(promoteWithDependentsAction, { stage: from, policy, to, dryRun: true }) as Promise<PromoteWithDependentsDto>,
  });
  const p = preview.data;
  const g = p?.guard;
  const moving = g?.members.filter((m) => m.from_revision_id !== m.to_revision_id) ?? [];
  const confirm = useActionMutation((vars: { expected: Record<string, string | null>; reason: string }) => runAction(promoteWithDependentsAction, { stage: from, policy, to, expected: vars.expected, reason: vars.reason || undefined }), {
    success: (r) => (requestOf(r) ? null : `${r.promoted.length} polic${r.promoted.length === 1 ? 'y' : 'ies'} promoted to ${to} together`),
    then: (r) => {
      const req = requestOf(r);
      if (req) setCreated(req);
      else onClose();
    },
  });
  return (
    <Modal title={`Promote ${policy} and its dependents to ${to}`} onClose={onClose} wide description={`One atomic move: every policy below moves into ${to}, or none does.`}>
      {created ? (
        <RequestCreatedPanel request={created} stage={to} onClose={onClose} />
      ) : (
        <div className="space-y-3">
          {preview.isPending && <p className="text-sm text-slate-600">Asking the guard…</p>}
          {preview.isError && <p className="text-sm text-rose-800">{errorMessage(preview.error)}</p>}
          {g && p && (
            <>
              <table className="table" data-testid="promote-all-members">
                <thead>
                  <tr>
                    <th>Policy</th>
                    <th>In {to} now</th>
                    <th>Becomes</th>
                  </tr>
                </thead>
                <tbody>
                  {g.members.map((m) => (
                    <tr key={m.policy} data-policy={m.policy}>
                      <td>
                        {m.policy}
                        {m.role === 'included' ? <span className="text-slate-600"> (included)</span> : null}
                      </td>
                      <td className="mono">{m.from_revision_id ? shortId(m.from_revision_id) : '—'}</td>
                      <td className="mono">{shortId(m.to_revision_id)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {p.left_out.length > 0 && (
                <div className="text-sm text-slate-700">
                  Left out:
                  <ul className="list-disc pl-5">
                    {p.left_out.map((l) => (
                      <li key={l.policy}>
                        {l.policy}: {l.reason}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
              <div className={`rounded p-2 text-sm ${g.outcome === 'blocked' ? 'bg-rose-50 text-rose-900' : 'bg-slate-50 text-slate-800'}`} data-testid="promote-all-guard">
                {g.summary}
                {g.reasons.length > 0 && (
                  <ul className="mt-1 list-disc pl-5">
                    {g.reasons.map((r, i) => (
                      <li key={i}>{r.message}</li>
                    ))}
                  </ul>
                )}
              </div>
              <div>
                <label htmlFor="promote-all-reason" className="block text-xs font-medium text-slate-600">
                  Reason (optional)
                </label>
                <input id="promote-all-reason" className="input" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
              </div>
            </>
          )}
          <div className="flex justify-end gap-2">
            <button type="button" className="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="btn btn-primary" disabled={!g || !moving.length || g.outcome === 'blocked' || confirm.isPending} onClick={() => p && confirm.mutate({ expected: p.expected, reason })}>
              {g ? g.action : 'Checking'}
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}
