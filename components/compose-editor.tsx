'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { toast } from 'sonner';
import type { MergeConflict, MergeWarning, PolicyLock, ProvenanceJson, LockDiff } from '@/lib/domain';
import { dateTime, shortId } from '@/lib/format';

type Source = { type: 'server'; policy: string; group?: string; revision?: string } | { type: 'upload'; lock: string | Record<string, unknown> } | { type: 'git'; repository: string; path: string; ref: string };
type Include = { name: string; source: Source };
type Options = {
  stages: { name: string; canPromote: boolean }[];
  active: Record<string, Record<string, string>>;
  canCreate: boolean;
  policies: { name: string; canSave: boolean; revisions: { revisionId: string; createdAt: string; origin: string; includes: Include[] | null }[] }[];
};
type Preview = { lock: PolicyLock; provenance: ProvenanceJson; previous: { revisionId: string; diff: LockDiff } | null; saved: { revisionId: string } | null; warnings?: MergeWarning[] };
type ApiError = { status: number; error: string[]; errors: { path: string; message: string }[]; conflicts?: MergeConflict[] };

async function post(policy: string, body: object): Promise<Preview> {
  const res = await fetch(`/api/v1/policies/${encodeURIComponent(policy)}/compose`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw { status: res.status, ...json } as ApiError;
  return json;
}

function parseJson(text: string, label: string): { value?: Record<string, unknown>; error?: string } {
  if (!text.trim()) return { value: {} };
  try {
    const v = JSON.parse(text);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: `${label} must be a JSON object` };
    return { value: v };
  } catch (e) {
    return { error: `${label}: ${(e as Error).message}` };
  }
}

const fmt = (v: unknown) => JSON.stringify(v);

export function ComposeEditor({ options, initialPolicy }: { options: Options; initialPolicy?: string }) {
  const router = useRouter();
  // Opens empty: nothing is pre-selected, so nothing can be saved by accident.
  const [policy, setPolicy] = useState(initialPolicy ?? '');
  const [parentMode, setParentMode] = useState<'new' | 'revision'>('new');
  const [parentRevision, setParentRevision] = useState('');
  const [runList, setRunList] = useState('');
  const [cookbooks, setCookbooks] = useState('{}');
  const [defaults, setDefaults] = useState('{}');
  const [overrides, setOverrides] = useState('{}');
  const [includes, setIncludes] = useState<Include[]>([]);
  const [saveGroup, setSaveGroup] = useState('');

  const info = options.policies.find((p) => p.name === policy);
  const parsed = useMemo(() => {
    if (parentMode === 'revision') return parentRevision ? { parent: { revision: parentRevision } } : { error: 'Choose the parent revision' };
    const c = parseJson(cookbooks, 'Cookbook locks');
    const d = parseJson(defaults, 'Default attributes');
    const o = parseJson(overrides, 'Override attributes');
    const error = c.error ?? d.error ?? o.error;
    if (error) return { error };
    return { parent: { run_list: runList.split(/[\n,]/).map((x) => x.trim()).filter(Boolean), cookbook_locks: c.value, default_attributes: d.value, override_attributes: o.value } };
  }, [parentMode, parentRevision, runList, cookbooks, defaults, overrides]);
  const body = 'parent' in parsed ? { parent: parsed.parent, includes } : null;
  // Something to save: an include, or a parent with a run list, cookbooks or attributes (or a parent revision to re-lock).
  const p = body?.parent as { revision?: string; run_list?: string[]; cookbook_locks?: object; default_attributes?: object; override_attributes?: object } | undefined;
  const hasContent =
    includes.length > 0 ||
    !!p?.revision ||
    (p?.run_list?.length ?? 0) > 0 ||
    [p?.cookbook_locks, p?.default_attributes, p?.override_attributes].some((v) => !!v && Object.keys(v).length > 0);

  const preview = useQuery({ queryKey: ['compose', policy, JSON.stringify(body)], queryFn: () => post(policy, body!), enabled: !!body && !!policy, placeholderData: keepPreviousData, retry: false });
  const save = useMutation({
    mutationFn: () => post(policy, { ...body, save: true, ...(saveGroup ? { group: saveGroup, expected_revision_id: options.active[policy]?.[saveGroup] ?? null } : {}) }),
    onSuccess: (r) => {
      toast.success(`Saved revision ${shortId(r.saved!.revisionId)} of ${policy}${saveGroup ? ` and pointed ${saveGroup} at it` : ''}`);
      router.push(`/policies/${encodeURIComponent(policy)}/revisions/${encodeURIComponent(r.saved!.revisionId)}`);
    },
    onError: (e) => toast.error((e as unknown as ApiError).error?.[0] ?? 'Save failed'),
  });
  const err = preview.error as ApiError | null;
  const updateInclude = (i: number, next: Include) => setIncludes(includes.map((x, j) => (j === i ? next : x)));
  const relockable = parentMode === 'revision' ? info?.revisions.find((r) => r.revisionId === parentRevision)?.includes : null;

  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,1.1fr)]">
      <div className="space-y-4">
        <section className="card space-y-3 p-4" aria-labelledby="parent-h">
          <h2 id="parent-h" className="font-semibold">
            Parent policy
          </h2>
          <label className="block text-xs font-medium text-slate-600">
            Policy (an existing one, or a new name)
            <input aria-label="Policy" className="input mt-1" list="compose-policy-names" value={policy} onChange={(e) => setPolicy(e.target.value.trim())} required pattern="[.A-Za-z0-9_:\-]{1,255}" />
            <datalist id="compose-policy-names">
              {options.policies.map((p) => (
                <option key={p.name} value={p.name} />
              ))}
            </datalist>
            {policy && !info && <span className="mt-1 block text-slate-600">New policy: saving creates it, owned by your team.</span>}
          </label>
          <div className="flex gap-4 text-sm" role="radiogroup" aria-label="Parent">
            <label className="flex items-center gap-1">
              <input type="radio" checked={parentMode === 'new'} onChange={() => setParentMode('new')} /> Start new
            </label>
            <label className="flex items-center gap-1">
              <input type="radio" checked={parentMode === 'revision'} onChange={() => setParentMode('revision')} /> From an existing revision
            </label>
          </div>
          {parentMode === 'revision' ? (
            <div className="space-y-2">
              <select aria-label="Parent revision" className="input" value={parentRevision} onChange={(e) => setParentRevision(e.target.value)}>
                <option value="">Choose a revision…</option>
                {info?.revisions.map((r) => (
                  <option key={r.revisionId} value={r.revisionId}>
                    {shortId(r.revisionId, 12)} · {r.origin} · {dateTime(r.createdAt)}
                  </option>
                ))}
              </select>
              {relockable && (
                <button type="button" className="btn" onClick={() => setIncludes(relockable)} data-testid="relock">
                  Re-lock: re-resolve its includes ({relockable.map((i) => i.name).join(', ')})
                </button>
              )}
            </div>
          ) : (
            <>
              <label className="block text-xs font-medium text-slate-600">
                Run list (one per line; shorthand like nginx or nginx::repo is fine)
                <textarea aria-label="Run list" className="input mono mt-1 h-20" value={runList} onChange={(e) => setRunList(e.target.value)} />
              </label>
              <label className="block text-xs font-medium text-slate-600">
                Cookbook locks (JSON){' '}
                <input
                  type="file"
                  accept=".json"
                  aria-label="Load cookbook locks from a lock file"
                  className="ml-2 text-xs"
                  onChange={async (e) => {
                    const f = e.target.files?.[0];
                    if (!f) return;
                    try {
                      const lock = JSON.parse(await f.text());
                      setCookbooks(JSON.stringify(lock.cookbook_locks ?? {}, null, 2));
                      if (!runList && Array.isArray(lock.run_list)) setRunList(lock.run_list.join('\n'));
                    } catch {
                      toast.error('That file is not a JSON lock');
                    }
                  }}
                />
                <textarea aria-label="Cookbook locks" className="input mono mt-1 h-28" value={cookbooks} onChange={(e) => setCookbooks(e.target.value)} />
              </label>
              <label className="block text-xs font-medium text-slate-600">
                Default attributes (JSON)
                <textarea aria-label="Default attributes" className="input mono mt-1 h-20" value={defaults} onChange={(e) => setDefaults(e.target.value)} />
              </label>
              <label className="block text-xs font-medium text-slate-600">
                Override attributes (JSON)
                <textarea aria-label="Override attributes" className="input mono mt-1 h-16" value={overrides} onChange={(e) => setOverrides(e.target.value)} />
              </label>
            </>
          )}
          {'error' in parsed && <p className="text-sm text-red-700">{parsed.error}</p>}
        </section>

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
                      <input className="input mt-1 w-56" value={(inc.source as { [key: string]: string })[k]} onChange={(e) => updateInclude(i, { ...inc, source: { ...(inc.source as Extract<Source, { type: 'git' }>), [k]: e.target.value } })} />
                    </label>
                  ))}
                </div>
              )}
            </div>
          ))}
        </section>
      </div>

      <section className="space-y-4" aria-labelledby="preview-h" data-testid="compose-preview">
        <div className="card flex flex-wrap items-center gap-3 p-4">
          <h2 id="preview-h" className="font-semibold">
            Preview {preview.isFetching && <span className="text-xs font-normal text-slate-600">updating…</span>}
          </h2>
          {preview.data && !err && <span className="badge bg-emerald-50 text-emerald-700">no conflicts · revision {shortId(preview.data.lock.revision_id)}</span>}
          {info?.canSave || (!info && options.canCreate) ? (
            <div className="ml-auto flex items-center gap-2">
              <select aria-label="Point a stage at it" className="input w-44" value={saveGroup} onChange={(e) => setSaveGroup(e.target.value)}>
                <option value="">Save only</option>
                {options.stages
                  .filter((s) => s.canPromote)
                  .map((s) => (
                    <option key={s.name} value={s.name}>
                      Save and run in {s.name}
                    </option>
                  ))}
              </select>
              <button type="button" className="btn btn-primary" disabled={!hasContent || !preview.data || !!err || save.isPending} onClick={() => save.mutate()}>
                {save.isPending ? 'Saving…' : 'Save as new revision'}
              </button>
            </div>
          ) : (
            <span className="ml-auto text-xs text-slate-600">Only {policy}&apos;s owner team can save compositions.</span>
          )}
        </div>

        {err && (
          <div role="alert" className="card border-red-200 bg-red-50 p-4 text-red-900" data-testid="conflicts">
            {err.conflicts ? (
              <>
                <p className="font-semibold">
                  {err.conflicts.length} conflict{err.conflicts.length === 1 ? '' : 's'}: the merge cannot be saved until each is resolved.
                </p>
                <ul className="mt-2 space-y-2">
                  {err.conflicts.map((c, i) => (
                    <li key={i} className="rounded bg-white/60 p-2" data-conflict-kind={c.kind}>
                      {c.kind === 'attribute' ? (
                        <>
                          Attribute <code className="mono">{c.path}</code> ({c.precedence}) is set to <code className="mono">{fmt(c.values?.[0])}</code> by <b>{c.sources[0]}</b> and to{' '}
                          <code className="mono">{fmt(c.values?.[1])}</code> by <b>{c.sources[1]}</b>.
                        </>
                      ) : (
                        c.message
                      )}
                    </li>
                  ))}
                </ul>
              </>
            ) : (
              <>
                <p className="font-semibold">{err.error?.[0]}</p>
                <ul className="mt-1 list-disc pl-5 text-sm">
                  {err.errors?.map((e, i) => (
                    <li key={i}>
                      <code className="mono">{e.path}</code> {e.message}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}

        {preview.data && !err && (
          <>
            {!!preview.data.warnings?.length && (
              <div role="status" className="card border-amber-200 bg-amber-50 p-4 text-amber-900" data-testid="merge-warnings">
                <ul className="list-disc pl-5">
                  {preview.data.warnings.map((w, i) => (
                    <li key={i}>{w.message}</li>
                  ))}
                </ul>
              </div>
            )}
            {preview.data.previous && (
              <div className="card p-4" data-testid="relock-diff">
                <h3 className="font-semibold">Against the previous composition ({shortId(preview.data.previous.revisionId)})</h3>
                <p className="text-sm text-slate-600">
                  {preview.data.previous.diff.identical || preview.data.previous.diff.summary.total === 0
                    ? 'Nothing changed: every include still resolves to the same content.'
                    : `${preview.data.previous.diff.summary.total} changes: ${preview.data.previous.diff.cookbooks.map((c) => `${c.name} ${c.kind}`).join(', ') || 'no cookbook changes'}.`}{' '}
                </p>
              </div>
            )}
            <div className="card p-4">
              <h3 className="mb-2 font-semibold">Run list</h3>
              {preview.data.lock.run_list.length === 0 && <p className="text-slate-600">Empty: give the parent a run list or add includes.</p>}
              <ol className="list-decimal space-y-0.5 pl-5" data-testid="merged-run-list">
                {preview.data.lock.run_list.map((item) => (
                  <li key={item}>
                    <span className="mono">{item}</span> <span className="badge bg-slate-100 text-slate-600">{preview.data.provenance.runList[item]}</span>
                  </li>
                ))}
              </ol>
            </div>
            <div className="card p-4">
              <h3 className="mb-2 font-semibold">Attributes</h3>
              {(['default', 'override'] as const).map((prec) => {
                const entries = Object.entries(preview.data!.provenance.attributes[prec]).filter(([path]) => {
                  const value = path.slice(1, -1).split('][').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], preview.data!.lock[`${prec}_attributes`]);
                  return !(value && typeof value === 'object' && !Array.isArray(value));
                });
                return (
                  <div key={prec} className="mb-2">
                    <div className="text-xs font-semibold uppercase text-slate-600">{prec}</div>
                    {entries.length === 0 && <p className="text-slate-600">none</p>}
                    <ul className="mono space-y-0.5">
                      {entries.map(([path, source]) => {
                        const value = path.slice(1, -1).split('][').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], preview.data!.lock[`${prec}_attributes`]);
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
                  {Object.entries(preview.data.lock.cookbook_locks).map(([cb, e]) => (
                    <tr key={cb}>
                      <td className="font-medium">{cb}</td>
                      <td className="mono">{e.version}</td>
                      <td className="mono">{shortId(e.identifier)}</td>
                      <td>{preview.data!.provenance.cookbooks[cb]}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="card p-4">
              <h3 className="mb-1 font-semibold">Included policy locks (pinned)</h3>
              <ul className="space-y-1 text-sm">
                {(preview.data.lock.included_policy_locks ?? []).map((i) => (
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
        )}
      </section>
    </div>
  );
}

function ServerSource({ i, source, options, onChange }: { i: number; source: Extract<Source, { type: 'server' }>; options: Options; onChange: (s: Extract<Source, { type: 'server' }>) => void }) {
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
