'use client';

import { useMemo } from 'react';
import { numericPrefixAdvice, type OrderDirectivesInput } from '@/lib/domain/ordering';
import type { OrderingPreview } from './use-ordering-preview';

/** What the node gets, in order, and why: the engine's result for the rules that apply. */
export function OrderingResult({ model, result }: { model: OrderDirectivesInput; result: OrderingPreview & { stale: boolean } }) {
  const advice = useMemo(() => numericPrefixAdvice([...model.rules.map((r) => r.name), ...model.directives.map((d) => d.name)]), [model]);
  const data = result.data;
  return (
    <section className="card p-3" aria-labelledby="result-h" data-testid="ordering-result">
      <h2 id="result-h" className="mb-2 font-semibold">
        What the node gets, in order {result.stale && <span className="text-xs font-normal text-slate-600">updating…</span>}
      </h2>
      {result.errors && (
        <div role="alert" className="mb-2 rounded-md border border-red-200 bg-red-50 p-2 text-red-800">
          <p className="font-medium">The input is not valid:</p>
          <ul className="list-disc pl-5">
            {result.errors.map((e, i) => (
              <li key={i}>
                <code className="mono">{e.path}</code> {e.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {data && (
        <>
          {[...data.errors, ...data.warnings].map((w, i) => (
            <p key={i} className={`mb-2 rounded-md border p-2 text-sm ${'kind' in w && (w.kind === 'unstable' || w.kind === 'tie') ? 'border-amber-200 bg-amber-50 text-amber-900' : 'border-red-200 bg-red-50 text-red-800'}`} data-testid="ordering-warning">
              <b>{w.kind}</b>: {w.message}
            </p>
          ))}
          {advice.map((a, i) => (
            <p key={i} className="mb-2 rounded-md border border-sky-200 bg-sky-50 p-2 text-sm text-sky-900">
              <b>advice</b>: {a}
            </p>
          ))}
          {data.policies.length === 0 && <p className="text-slate-600">No directive applies: tick a rule that has directives.</p>}
          <ol className="space-y-2">
            {data.policies.map((p, i) => (
              <li key={`${p.technique}-${p.directive}-${i}`} className="rounded border border-slate-200 p-2" data-policy-technique={p.technique}>
                <div className="flex flex-wrap items-center gap-2">
                  <span className="badge bg-slate-800 text-white">{i + 1}</span>
                  <span className="badge bg-indigo-50 text-indigo-700">{p.technique}</span>
                  <span className="font-medium">
                    {p.rule} / {p.directive}
                  </span>
                  <span className="badge bg-slate-100 text-slate-600">{p.mode}</span>
                </div>
                <p className="mt-1 text-xs text-slate-600" data-testid="why">
                  Why here: sorted by (rule, directive) = ({p.sortKey.map((k) => `“${k}”`).join(', ')}), case-insensitive text order{p.mode === 'merged' ? ', from its name-smallest pair; priority does not move it' : ''}.
                </p>
                <p className="mt-1 text-sm" data-testid="value-order">
                  Values in order: [{p.valueOrder.join(', ')}]
                  {p.valueOrder.length > 1 && <span className="ml-1 text-xs text-emerald-700">— {p.valueOrder[p.valueOrder.length - 1]} is effective (the agent keeps the last definition)</span>}
                </p>
                {p.skipped.length > 0 && (
                  <ul className="mt-1 list-disc pl-5 text-xs text-slate-600">
                    {p.skipped.map((s, j) => (
                      <li key={j}>
                        skipped {s.rule} / {s.directive}: {s.reason}
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
