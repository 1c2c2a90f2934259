'use client';

import { dateTime, shortId } from '@/lib/format';
import type { IncludeSource } from '@/lib/validation/compose';
import type { ComposeOptions } from '@/lib/types/compose';
import type { Include } from './draft';

/** The includes, merged in this order before the parent's own run list: each from the server (a stage or a revision), an uploaded lock, or a registered git repository. */
export function IncludesSection({ options, includes, setIncludes }: { options: ComposeOptions; includes: Include[]; setIncludes: (next: Include[]) => void }) {
  const updateInclude = (i: number, next: Include) => setIncludes(includes.map((x, j) => (j === i ? next : x)));
  return (
    <section className="card space-y-3 p-4" aria-labelledby="includes-h">
      <div className="flex items-center justify-between">
        <h2 id="includes-h" className="font-semibold">
          Includes <span className="text-xs font-normal text-slate-600">(merged in this order, before the parent&apos;s own run list)</span>
        </h2>
        <button type="button" className="btn" onClick={() => setIncludes([...includes, { name: `include${includes.length + 1}`, source: { type: 'server', policy: options.policies[0]?.name ?? '', group: options.stages[0]?.name } }])}>
          Add include
        </button>
      </div>
      {includes.length === 0 && <p className="text-slate-600">No includes yet.</p>}
      {includes.map((inc, i) => (
        <div key={i} className="space-y-2 rounded border border-slate-200 p-3" data-include={i}>
          <div className="flex flex-wrap items-end gap-2">
            <label className="text-xs font-medium text-slate-600">
              Include name
              <input aria-label={`Include ${i + 1} name`} className="input mt-1 w-36" value={inc.name} onChange={(e) => updateInclude(i, { ...inc, name: e.target.value })} />
            </label>
            <label className="text-xs font-medium text-slate-600">
              Source
              <select
                aria-label={`Include ${i + 1} source`}
                className="input mt-1 w-32"
                value={inc.source.type}
                onChange={(e) =>
                  updateInclude(i, {
                    ...inc,
                    source: e.target.value === 'server' ? { type: 'server', policy: options.policies[0]?.name ?? '', group: options.stages[0]?.name } : e.target.value === 'git' ? { type: 'git', repository: '', path: 'Policyfile.lock.json', ref: 'main' } : { type: 'upload', lock: '' },
                  })
                }
              >
                <option value="server">server</option>
                <option value="upload">upload</option>
                <option value="git">git</option>
              </select>
            </label>
            <button type="button" className="ml-auto text-xs text-red-700 hover:underline" onClick={() => setIncludes(includes.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
          {inc.source.type === 'server' && (
            <ServerSource
              i={i}
              source={inc.source}
              options={options}
              onChange={(source) => updateInclude(i, { name: inc.name.startsWith('include') ? source.policy : inc.name, source })}
            />
          )}
          {inc.source.type === 'upload' && (
            <input
              type="file"
              accept=".json"
              aria-label={`Include ${i + 1} lock file`}
              onChange={async (e) => {
                const f = e.target.files?.[0];
                if (f) updateInclude(i, { ...inc, source: { type: 'upload', lock: await f.text() } });
              }}
            />
          )}
          {inc.source.type === 'git' && (
            <div className="flex flex-wrap gap-2">
              {(['repository', 'path', 'ref'] as const).map((k) => (
                <label key={k} className="text-xs font-medium text-slate-600">
                  {k === 'repository' ? 'Registered repository (name)' : k === 'path' ? 'File path' : 'Branch, tag or commit'}
                  <input className="input mt-1 w-56" value={(inc.source as { [key: string]: string })[k]} onChange={(e) => updateInclude(i, { ...inc, source: { ...(inc.source as Extract<IncludeSource, { type: 'git' }>), [k]: e.target.value } })} />
                </label>
              ))}
            </div>
          )}
        </div>
      ))}
    </section>
  );
}

function ServerSource({ i, source, options, onChange }: { i: number; source: Extract<IncludeSource, { type: 'server' }>; options: ComposeOptions; onChange: (s: Extract<IncludeSource, { type: 'server' }>) => void }) {
  const revisions = options.policies.find((p) => p.name === source.policy)?.revisions ?? [];
  const value = source.group ? `group:${source.group}` : source.revision ? `rev:${source.revision}` : '';
  return (
    <div className="flex flex-wrap gap-2">
      <label className="text-xs font-medium text-slate-600">
        Policy
        <select aria-label={`Include ${i + 1} policy`} className="input mt-1 w-44" value={source.policy} onChange={(e) => onChange({ type: 'server', policy: e.target.value, group: source.group ?? options.stages[0]?.name })}>
          {options.policies.map((p) => (
            <option key={p.name}>{p.name}</option>
          ))}
        </select>
      </label>
      <label className="text-xs font-medium text-slate-600">
        Stage or revision
        <select
          aria-label={`Include ${i + 1} stage or revision`}
          className="input mt-1 w-72"
          value={value}
          onChange={(e) => {
            const v = e.target.value;
            onChange(v.startsWith('group:') ? { type: 'server', policy: source.policy, group: v.slice(6) } : { type: 'server', policy: source.policy, revision: v.slice(4) });
          }}
        >
          <optgroup label="Current revision in a stage (pinned when saved)">
            {options.stages.map((s) => (
              <option key={s.name} value={`group:${s.name}`}>
                {s.name} {options.active[source.policy]?.[s.name] ? `(${shortId(options.active[source.policy][s.name])})` : '(not there)'}
              </option>
            ))}
          </optgroup>
          <optgroup label="A revision">
            {revisions.map((r) => (
              <option key={r.revisionId} value={`rev:${r.revisionId}`}>
                {shortId(r.revisionId, 12)} · {dateTime(r.createdAt)}
              </option>
            ))}
          </optgroup>
        </select>
      </label>
    </div>
  );
}
