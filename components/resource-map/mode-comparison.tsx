'use client';

import type { ResolveResourceMapResult, ResourceMapMode } from '@/lib/domain/resource-map';

export type CookbookReg = { key: string; className: string; platform_family: string; os: string; coreOverride: boolean };

/**
 * Each resource name under every mode side by side (rows that differ are
 * highlighted), then the selected mode's ranked list for each name with why
 * each class sits where it does.
 */
export function ModeComparison({ modes, results, r, keys, cookbooks }: { modes: readonly { id: ResourceMapMode; label: string }[]; results: (ResolveResourceMapResult | null)[]; r: ResolveResourceMapResult | null; keys: string[]; cookbooks: CookbookReg[] }) {
  const MODES = modes;
  return (
    <>
      <div className="card overflow-x-auto">
        <table className="table" data-testid="mode-comparison">
          <thead>
            <tr>
              <th>Name</th>
              {MODES.map((m) => (
                <th key={m.id}>{m.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => {
              const cells = results;
              const differs = new Set(cells.map((c) => c?.resolved[k] ?? null)).size > 1;
              return (
                <tr key={k} data-key={k} className={differs ? 'bg-amber-50/60' : ''}>
                  <td className="mono font-medium">{k}</td>
                  {cells.map((c, i) => {
                    const warned = c?.warnings.some((w) => w.key === k);
                    const refused = c?.rejected.some((w) => w.key === k && w.reason === 'locked');
                    return (
                      <td key={MODES[i].id} data-mode={MODES[i].id}>
                        <span className="mono">{c?.resolved[k] ?? '— (nothing matches)'}</span>
                        {warned && <span className="badge ml-1 bg-amber-100 text-amber-800">warning</span>}
                        {refused && <span className="badge ml-1 bg-red-100 text-red-800">refused</span>}
                        {cookbooks
                          .filter((cb) => cb.key === k)
                          .map((cb) => {
                            const rank = c?.ranked[k]?.indexOf(cb.className) ?? -1;
                            return (
                              <div key={cb.className} className="text-xs text-slate-600" data-testid="cookbook-status">
                                {cb.className}: {rank >= 0 ? `mapped, rank ${rank + 1} of ${c!.ranked[k].length}` : 'not mapped'}
                              </div>
                            );
                          })}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>

      {r && (
        <div className="grid gap-3 md:grid-cols-2" data-testid="ranked">
          {Object.entries(r.explanations).map(([key, entries]) => (
            <section key={key} className="card p-3" data-key={key}>
              <h3 className="mb-1 font-semibold">
                <span className="mono">{key}</span> → <span className="mono text-indigo-700">{r.resolved[key] ?? 'nothing'}</span>
              </h3>
              <ol className="space-y-1 text-xs">
                {entries.map((e, i) => (
                  <li key={i} className={e.matches ? '' : 'text-slate-600'}>
                    <span className="font-medium">
                      {i + 1}. {e.className}
                    </span>{' '}
                    <span className="badge bg-slate-100">{e.source}</span> {e.locked && <span className="badge bg-slate-200">locked</span>}{' '}
                    {e.preview && <span className="badge bg-violet-100 text-violet-800">preview</span>}
                    <div>position: {e.reason}</div>
                    <div>node: {e.match}</div>
                  </li>
                ))}
              </ol>
            </section>
          ))}
        </div>
      )}
    </>
  );
}
