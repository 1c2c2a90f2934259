'use client';

import { keepPreviousData, useQueries } from '@tanstack/react-query';
import { useState } from 'react';
import type { NodeFacts, Registration, ResolveResourceMapResult, ResourceMapMode } from '@/lib/domain/resource-map';
import { CORE_CATALOG, NODE_PRESETS } from '@/lib/resource-catalog';

const MODES: { id: ResourceMapMode; label: string }[] = [
  { id: 'rfc', label: 'RFC design (refuse)' },
  { id: 'chef14', label: 'Chef 14.3–14.12 (deprecation)' },
  { id: 'chef15', label: 'Chef 15+ (warning)' },
];

async function resolve(body: object): Promise<ResolveResourceMapResult> {
  const res = await fetch('/api/v1/resource-map/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(json.errors?.map((e: { path: string; message: string }) => `${e.path}: ${e.message}`).join('; ') ?? json.error?.[0]);
  return json;
}

type CookbookReg = { key: string; className: string; platform_family: string; os: string; coreOverride: boolean };

/** Whether a Chef version can behave as `mode` says: Chef 14 mode is 14.3–14.12, Chef 15+ mode needs 15 or later. */
function versionMismatch(mode: ResourceMapMode, version: string): string | null {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return `"${version}" is not a Chef version (major.minor…).`;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (mode === 'chef14' && !(major === 14 && minor >= 3 && minor <= 12)) return `Chef ${version} does not behave as Chef 14.3–14.12: pick that mode only for those versions.`;
  if (mode === 'chef15' && major < 15) return `Chef ${version} is older than 15: the Chef 15+ mode does not describe it.`;
  return null;
}

/** `initial`: a registration to load (the "Explore" link of a takeover warning names the cookbook and the resource). */
export function ResourceMapEditor({ initial }: { initial?: { cookbook: string; resource: string } }) {
  const [node, setNode] = useState<NodeFacts>(NODE_PRESETS[0].node);
  const [chefVersion, setChefVersion] = useState('18.4.2');
  const [mode, setMode] = useState<ResourceMapMode>('rfc');
  const [cookbooks, setCookbooks] = useState<CookbookReg[]>(() =>
    initial ? [{ key: initial.resource, className: `${initial.cookbook}::${initial.resource}`, platform_family: '', os: '', coreOverride: false }] : [],
  );
  const mismatch = versionMismatch(mode, chefVersion);
  const [draft, setDraft] = useState<CookbookReg>({ key: 'package', className: 'MyCompany::Package', platform_family: '', os: '', coreOverride: false });

  const registrations: Registration[] = [
    ...CORE_CATALOG,
    ...cookbooks.map((c) => ({
      key: c.key,
      className: c.className,
      source: 'cookbook' as const,
      ...(c.platform_family || c.os ? { filters: { ...(c.platform_family ? { platform_family: c.platform_family } : {}), ...(c.os ? { os: c.os } : {}) } } : {}),
      ...(c.coreOverride ? { coreOverride: true } : {}),
    })),
  ];
  const results = useQueries({
    queries: MODES.map((m) => ({
      queryKey: ['resource-map', m.id, chefVersion, node, registrations],
      queryFn: () => resolve({ mode: m.id, chefVersion, node, registrations }),
      placeholderData: keepPreviousData,
      retry: false,
    })),
  });
  const selected = results[MODES.findIndex((m) => m.id === mode)];
  const r = selected.data;
  const keys = [...new Set([...Object.keys(results[0].data?.ranked ?? {}), ...cookbooks.map((c) => c.key)])].sort();

  return (
    <div className="space-y-4">
      <div className="card flex flex-wrap items-end gap-3 p-3">
        <label className="text-xs font-medium text-slate-600">
          Node
          <select
            className="input mt-1 w-52"
            value={NODE_PRESETS.find((p) => JSON.stringify(p.node) === JSON.stringify(node))?.label ?? ''}
            onChange={(e) => e.target.value && setNode(NODE_PRESETS.find((p) => p.label === e.target.value)!.node)}
          >
            <option value="" disabled>
              Custom (edited facts)
            </option>
            {NODE_PRESETS.map((p) => (
              <option key={p.label}>{p.label}</option>
            ))}
          </select>
        </label>
        {(['platform', 'platform_family', 'platform_version', 'os'] as const).map((k) => (
          <label key={k} className="text-xs font-medium text-slate-600">
            {k}
            <input className="input mt-1 w-32" value={node[k]} onChange={(e) => setNode({ ...node, [k]: e.target.value })} />
          </label>
        ))}
        <label className="text-xs font-medium text-slate-600">
          Chef version
          <input className="input mt-1 w-24" value={chefVersion} onChange={(e) => setChefVersion(e.target.value)} />
        </label>
        <label className="text-xs font-medium text-slate-600">
          Mode
          <select aria-label="Mode" className="input mt-1 w-60" value={mode} onChange={(e) => setMode(e.target.value as ResourceMapMode)}>
            {MODES.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        {mismatch && (
          <p role="status" className="w-full text-xs font-medium text-amber-900" data-testid="version-mismatch">
            ⚠ {mismatch}
          </p>
        )}
      </div>

      <form
        className="card flex flex-wrap items-end gap-3 p-3"
        aria-label="Add a cookbook registration"
        onSubmit={(e) => {
          e.preventDefault();
          setCookbooks([...cookbooks, draft]);
        }}
      >
        <h2 className="w-full font-semibold">Cookbook registrations (made after core locks the map)</h2>
        <label className="text-xs font-medium text-slate-600">
          Resource name
          <input aria-label="Resource name" className="input mt-1 w-36" required value={draft.key} onChange={(e) => setDraft({ ...draft, key: e.target.value })} />
        </label>
        <label className="text-xs font-medium text-slate-600">
          Class
          <input aria-label="Class" className="input mt-1 w-56" required value={draft.className} onChange={(e) => setDraft({ ...draft, className: e.target.value })} />
        </label>
        <label className="text-xs font-medium text-slate-600">
          platform_family filter
          <input className="input mt-1 w-32" value={draft.platform_family} onChange={(e) => setDraft({ ...draft, platform_family: e.target.value })} />
        </label>
        <label className="text-xs font-medium text-slate-600">
          os filter
          <input className="input mt-1 w-28" value={draft.os} onChange={(e) => setDraft({ ...draft, os: e.target.value })} />
        </label>
        <label className="flex items-center gap-1 text-xs">
          <input type="checkbox" checked={draft.coreOverride} onChange={(e) => setDraft({ ...draft, coreOverride: e.target.checked })} /> __core_override__
        </label>
        <button type="submit" className="btn btn-primary">
          Add registration
        </button>
        {cookbooks.length > 0 && (
          <ul className="w-full space-y-1">
            {cookbooks.map((c, i) => (
              <li key={i} className="flex items-center gap-2 text-sm">
                <code className="mono">provides :{c.key}</code> → {c.className} {c.platform_family && `platform_family ${c.platform_family}`} {c.os && `os ${c.os}`} {c.coreOverride && '__core_override__'}
                <button type="button" className="text-xs text-red-700 hover:underline" onClick={() => setCookbooks(cookbooks.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
      </form>

      {selected.error && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
          {(selected.error as Error).message}
        </p>
      )}

      {r && (
        <div className="space-y-2" data-testid="resource-map-messages">
          {r.warnings.map((w, i) => (
            <p key={`w${i}`} className="rounded-md border border-amber-200 bg-amber-50 p-2 text-amber-900" data-kind={w.kind}>
              <b>{w.kind}</b> · {w.key}: {w.message}
            </p>
          ))}
          {r.rejected.map((w, i) => (
            <p key={`r${i}`} className="rounded-md border border-red-200 bg-red-50 p-2 text-red-800" data-testid="refused">
              <b>refused</b> · {w.className} for {w.key}: {w.reason === 'locked' ? 'the name is locked by core' : w.reason === 'chef_version' ? 'its chef_version excludes this Chef' : w.reason}
            </p>
          ))}
          {r.errors.map((w, i) => (
            <p key={`e${i}`} className="rounded-md border border-red-200 bg-red-50 p-2 text-red-800">
              <b>error</b> · {w.className} for {w.key}: {w.reason}
            </p>
          ))}
        </div>
      )}

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
              const cells = results.map((q) => q.data);
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
    </div>
  );
}
