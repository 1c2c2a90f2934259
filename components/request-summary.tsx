import Link from 'next/link';
import type { RequestDetailView } from '@/lib/services/promotion';
import { dateTime, shortId } from '@/lib/format';
import { RequestStatusBadge, statusExplanation } from './request-status';

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const revLink = (policy: string, rev: string) => `/policies/${encodeURIComponent(policy)}/revisions/${encodeURIComponent(rev)}`;

/** The exact change, the rules that sized it, and the approvals so far. */
export function RequestSummary({ r }: { r: RequestDetailView }) {
  const approved = r.approvals.filter((a) => a.decision === 'approved' && !a.notCounted).length;
  return (
    <div className="grid gap-4 lg:grid-cols-3 [&>*]:min-w-0">
      <section className="card p-4" aria-labelledby="req-change">
        <h2 id="req-change" className="mb-2 font-semibold">
          The change
        </h2>
        <dl className="grid grid-cols-[7rem_1fr] gap-x-3 gap-y-1.5 text-sm">
          <dt className="text-slate-600">Policy</dt>
          <dd>
            <Link className="text-indigo-700 underline" href={`/policies/${encodeURIComponent(r.policy)}`}>
              {r.policy}
            </Link>
          </dd>
          <dt className="text-slate-600">Stage</dt>
          <dd>{r.stage}</dd>
          <dt className="text-slate-600">Runs then</dt>
          <dd className="mono">{r.fromRevisionId ? <Link className="text-indigo-700 underline" href={revLink(r.policy, r.fromRevisionId)}>{shortId(r.fromRevisionId, 12)}</Link> : `not in ${r.stage}`}</dd>
          <dt className="text-slate-600">Would run</dt>
          <dd className="mono" data-testid="request-to-revision">
            {r.toRevisionId ? (
              <Link className="text-indigo-700 underline" href={revLink(r.policy, r.toRevisionId)}>
                {shortId(r.toRevisionId, 12)}
              </Link>
            ) : (
              `nothing: ${r.policy} is removed from ${r.stage}`
            )}
          </dd>
          <dt className="text-slate-600">Nodes</dt>
          <dd>
            {r.blastRadius.nodes} node{r.blastRadius.nodes === 1 ? '' : 's'} in {r.stage} run {r.policy}
            {r.blastRadius.stale > 0 && ` (${r.blastRadius.stale} stale)`}
          </dd>
          <dt className="text-slate-600">{r.status === 'applied' ? 'What it did' : 'Approval'}</dt>
          <dd data-testid="request-effect">
            {r.status === 'applied' ? capital(r.effect.applied) : `${r.status === 'pending' ? 'The last approval' : 'It'} ${r.effect.onApproval}`}.
            {r.ring && (
              <>
                {' '}
                <Link className="text-indigo-700 underline" href={r.ring.url}>
                  The ringed rollout<span className="sr-only"> of {r.policy} in {r.stage}</span>
                </Link>{' '}
                is {r.ring.status.replace('_', ' ')}.
              </>
            )}
          </dd>
          {r.currentRevisionId !== r.fromRevisionId && (
            <>
              <dt className="text-slate-600">Runs now</dt>
              <dd className="mono">{r.currentRevisionId ? shortId(r.currentRevisionId, 12) : `not in ${r.stage}`}</dd>
            </>
          )}
          <dt className="text-slate-600">Asked by</dt>
          <dd>
            {r.requestedBy}, {dateTime(r.createdAt)}
          </dd>
          {r.reason && (
            <>
              <dt className="text-slate-600">Why</dt>
              <dd>“{r.reason}”</dd>
            </>
          )}
          {r.freezeOverride && (
            <>
              <dt className="text-slate-600">Freeze override</dt>
              <dd>“{r.freezeOverride}”</dd>
            </>
          )}
          {r.decidedBy && r.status !== 'pending' && (
            <>
              <dt className="text-slate-600">Closed by</dt>
              <dd>{r.decidedBy}</dd>
            </>
          )}
          {r.status === 'pending' && r.expiresAt && (
            <>
              <dt className="text-slate-600">Expires</dt>
              <dd>{dateTime(r.expiresAt)}</dd>
            </>
          )}
        </dl>
        <p className="mt-3 flex flex-wrap items-center gap-2 text-sm text-slate-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500" data-testid="request-status-line" tabIndex={-1}>
          <RequestStatusBadge status={r.status} /> {statusExplanation(r.status, r.stage, r.kind === 'ring' ? r.effect : undefined)}
        </p>
      </section>
      <section className="card p-4" aria-labelledby="req-rules">
        <h2 id="req-rules" className="mb-2 font-semibold">
          Approvals required: <span data-testid="approvals-required">{r.approvalsRequired}</span>
        </h2>
        {r.reasons.length === 0 ? (
          <p className="text-slate-600">No rule of {r.stage} matched this change; the stage&apos;s default applies.</p>
        ) : (
          <ul className="list-disc space-y-1 pl-5 text-sm" data-testid="request-reasons">
            {r.reasons.map((reason, i) => (
              <li key={i}>{reason}</li>
            ))}
          </ul>
        )}
        <p className="mt-2 text-xs text-slate-600">The largest number any matching rule asks for is required (rules do not add up).</p>
      </section>
      <section className="card p-4" aria-labelledby="req-approvals">
        <h2 id="req-approvals" className="mb-2 font-semibold">
          Approvals so far: <span data-testid="approval-count">{approved} of {r.approvalsRequired}</span>
        </h2>
        {r.approvals.length === 0 ? (
          <p className="text-slate-600">Nobody has decided yet.</p>
        ) : (
          <ol className="space-y-2 text-sm" data-testid="approvals">
            {r.approvals.map((a, i) => (
              <li key={i} data-decision={a.decision}>
                <span className={`badge ${a.decision === 'approved' ? 'bg-emerald-50 text-emerald-800' : 'bg-red-50 text-red-800'}`}>{a.decision}</span> <b>{a.user}</b>{' '}
                <span className="text-xs text-slate-600">{dateTime(a.at)}</span>
                {a.notCounted && (
                  <p className="text-amber-800" data-testid="approval-not-counted">
                    This approval no longer counts: {a.notCounted}.
                  </p>
                )}
                {a.comment && <p className="text-slate-700">“{a.comment}”</p>}
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
