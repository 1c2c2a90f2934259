'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { dateTime, shortId } from '@/lib/format';

type Options = { policies: string[]; stages: string[]; revisions: { revisionId: string; createdAt: string }[] };

/**
 * Choose a policy and two sides. Changing the policy resets both sides to
 * stages (the revisions belong to the old policy) and reloads its revisions;
 * a side from the URL that is not among the options is never shown as if it
 * were selected. A GET form underneath, so every choice is a deep link.
 */
export function ComparePicker({ options, policy, from, to }: { options: Options; policy?: string; from?: string; to?: string }) {
  const router = useRouter();
  const valid = new Set([...options.stages, ...options.revisions.map((r) => `rev:${r.revisionId}`)]);
  const defaultFrom = options.stages[options.stages.length - 2] ?? options.stages[0] ?? '';
  const defaultTo = options.stages[options.stages.length - 1] ?? '';
  const [policyValue, setPolicy] = useState(policy ?? '');
  const [fromValue, setFrom] = useState(from && valid.has(from) ? from : defaultFrom);
  const [toValue, setTo] = useState(to && valid.has(to) ? to : defaultTo);
  const unknown = [from && !valid.has(from) ? `from "${from}"` : null, to && !valid.has(to) ? `to "${to}"` : null].filter(Boolean);
  const sideOptions = (
    <>
      <optgroup label="Stages">
        {options.stages.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </optgroup>
      {options.revisions.length > 0 && policyValue === policy && (
        <optgroup label={`Revisions of ${policy}`}>
          {options.revisions.map((r) => (
            <option key={r.revisionId} value={`rev:${r.revisionId}`}>
              {shortId(r.revisionId, 12)} · {dateTime(r.createdAt)}
            </option>
          ))}
        </optgroup>
      )}
    </>
  );
  return (
    <div className="space-y-3">
      <form method="get" action="/compare" className="card flex flex-wrap items-end gap-3 p-4" aria-label="Choose what to compare">
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
          Policy
          <select
            name="policy"
            value={policyValue}
            className="input w-56"
            required
            onChange={(e) => {
              setPolicy(e.target.value);
              setFrom(defaultFrom);
              setTo(defaultTo);
              router.push(`/compare?policy=${encodeURIComponent(e.target.value)}`);
            }}
          >
            <option value="" disabled>
              Choose a policy…
            </option>
            {options.policies.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
          From
          <select name="from" value={fromValue} onChange={(e) => setFrom(e.target.value)} className="input w-64">
            {sideOptions}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
          To
          <select name="to" value={toValue} onChange={(e) => setTo(e.target.value)} className="input w-64">
            {sideOptions}
          </select>
        </label>
        <button type="submit" className="btn btn-primary" disabled={!policyValue}>
          Compare
        </button>
        {!policy && <p className="w-full text-xs text-slate-700">Pick a policy first to list its revisions as well as its stages.</p>}
        {unknown.length > 0 && (
          <p role="alert" className="w-full text-xs text-red-800">
            {policy} has no {unknown.join(' and ')}: showing the default stages instead.
          </p>
        )}
      </form>
      {policy && !from && !to && options.stages.length > 1 && (
        <nav aria-label={`Compare ${policy} between stages`} className="card p-4">
          <p className="mb-2 text-slate-700">Compare {policy} along the promotion path:</p>
          <ul className="flex flex-wrap gap-2">
            {options.stages.slice(1).map((s, i) => (
              <li key={s}>
                <Link className="btn" href={`/compare?policy=${encodeURIComponent(policy)}&from=${encodeURIComponent(options.stages[i])}&to=${encodeURIComponent(s)}`}>
                  {options.stages[i]} → {s}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
    </div>
  );
}
