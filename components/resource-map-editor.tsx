'use client';

import { useMemo, useState } from 'react';
import type { NodeFacts, Registration, ResourceMapMode } from '@/lib/domain/resource-map';
import { CORE_CATALOG, NODE_PRESETS } from '@/lib/resource-catalog';
import { ModeComparison, type CookbookReg } from './resource-map/mode-comparison';
import { useResourceMaps } from './resource-map/use-resource-maps';

const MODES: { id: ResourceMapMode; label: string }[] = [
  { id: 'rfc', label: 'RFC design (refuse)' },
  { id: 'chef14', label: 'Chef 14.3–14.12 (deprecation)' },
  { id: 'chef15', label: 'Chef 15+ (warning)' },
];
const MODE_IDS = MODES.map((m) => m.id);

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

  const input = useMemo(() => {
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
    return { chefVersion, node, registrations };
  }, [chefVersion, node, cookbooks]);
  // All three modes, computed in the browser (lib/domain/resource-map): nothing here needs the server.
  const results = useResourceMaps(MODE_IDS, input);
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
          {selected.error}
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

      <ModeComparison modes={MODES} results={results.map((x) => x.data)} r={r} keys={keys} cookbooks={cookbooks} />
    </div>
  );
}
