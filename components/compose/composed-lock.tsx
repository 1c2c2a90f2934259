'use client';

import Link from 'next/link';
import { shortId } from '@/lib/format';
import type { ComposeResult } from '@/lib/services/compose';

const fmt = (v: unknown) => JSON.stringify(v);

/** A value in a lock's attributes by its provenance path (`[a][b]`). */
const at = (path: string, attributes: Record<string, unknown>) => path.slice(1, -1).split('][').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], attributes);

/** The composed lock as a preview: warnings, the re-lock diff, the merged run list, attributes and cookbooks, each with the source it came from. */
export function ComposedLock({ policy, data }: { policy: string; data: ComposeResult }) {
  return (
    <>
        {!!data.warnings?.length && (
          <div role="status" className="card border-amber-200 bg-amber-50 p-4 text-amber-900" data-testid="merge-warnings">
            <ul className="list-disc pl-5">
              {data.warnings.map((w, i) => (
                <li key={i}>{w.message}</li>
              ))}
            </ul>
          </div>
        )}
        {data.previous && (
          <div className="card p-4" data-testid="relock-diff">
            <h3 className="font-semibold">Against the previous composition ({shortId(data.previous.revisionId)})</h3>
            <p className="text-sm text-slate-600">
              {data.previous.diff.identical || data.previous.diff.summary.total === 0
                ? 'Nothing changed: every include still resolves to the same content.'
                : `${data.previous.diff.summary.total} changes: ${data.previous.diff.cookbooks.map((c) => `${c.name} ${c.kind}`).join(', ') || 'no cookbook changes'}.`}{' '}
            </p>
          </div>
        )}
        <div className="card p-4">
          <h3 className="mb-2 font-semibold">Run list</h3>
          {data.lock.run_list.length === 0 && <p className="text-slate-600">Empty: give the parent a run list or add includes.</p>}
          <ol className="list-decimal space-y-0.5 pl-5" data-testid="merged-run-list">
            {data.lock.run_list.map((item) => (
              <li key={item}>
                <span className="mono">{item}</span> <span className="badge bg-slate-100 text-slate-600">{data.provenance.runList[item]}</span>
              </li>
            ))}
          </ol>
        </div>
        <div className="card p-4">
          <h3 className="mb-2 font-semibold">Attributes</h3>
          {(['default', 'override'] as const).map((prec) => {
            const entries = Object.entries(data.provenance.attributes[prec]).filter(([path]) => {
              const value = at(path, data.lock[`${prec}_attributes`] ?? {});
              return !(value && typeof value === 'object' && !Array.isArray(value));
            });
            return (
              <div key={prec} className="mb-2">
                <div className="text-xs font-semibold uppercase text-slate-600">{prec}</div>
                {entries.length === 0 && <p className="text-slate-600">none</p>}
                <ul className="mono space-y-0.5">
                  {entries.map(([path, source]) => {
                    const value = at(path, data.lock[`${prec}_attributes`] ?? {});
                    return (
                      <li key={path}>
                        {path} = {fmt(value)} <span className="badge bg-slate-100 font-sans text-slate-600">{source}</span>
                      </li>
                    );
                  })}
                </ul>
              </div>
            );
          })}
        </div>
        <div className="card overflow-x-auto">
          <table className="table">
            <thead>
              <tr>
                <th>Cookbook</th>
                <th>Version</th>
                <th>Identifier</th>
                <th>From</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(data.lock.cookbook_locks).map(([cb, e]) => (
                <tr key={cb}>
                  <td className="font-medium">{cb}</td>
                  <td className="mono">{e.version}</td>
                  <td className="mono">{shortId(e.identifier)}</td>
                  <td>{data.provenance.cookbooks[cb]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="card p-4">
          <h3 className="mb-1 font-semibold">Included policy locks (pinned)</h3>
          <ul className="space-y-1 text-sm">
            {(data.lock.included_policy_locks ?? []).map((i) => (
              <li key={i.name}>
                <b>{i.name}</b> <span className="mono">{shortId(i.revision_id)}</span> <span className="mono text-xs text-slate-600">{fmt(i.source_options)}</span>
              </li>
            ))}
          </ul>
          <p className="mt-2 text-xs text-slate-600">
            Saved revisions appear on the{' '}
            <Link className="underline" href={`/policies/${encodeURIComponent(policy)}`}>
              policy page
            </Link>
            .
          </p>
        </div>
    </>
  );
}
