'use client';

import { useRouter } from 'next/navigation';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, runAction } from '@/lib/actions/client';
import { saveScenarioAction } from '@/lib/actions/previews/scenario-actions';
import type { ScenarioDto } from '@/lib/types/scenarios';
import { numericPrefixAdvice, type OrderDirectivesInput, type OrderDirectivesResult } from '@/lib/domain';
import { Modal } from './modal';

const PRIORITY_LABEL = (p: number) => (p === 0 ? '0 · Highest' : p === 5 ? '5 · Default' : p === 10 ? '10 · Lowest' : String(p));
const EMPTY: OrderDirectivesInput = { techniques: [], directives: [], rules: [] };

type PreviewError = { error: string[]; errors: { path: string; message: string }[] };

async function preview(input: OrderDirectivesInput): Promise<OrderDirectivesResult> {
  const res = await fetch('/api/v1/ordering/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
  const body = await res.json();
  if (!res.ok) throw body as PreviewError;
  return body;
}

export function OrderingEditor({ scenarios }: { scenarios: ScenarioDto[] }) {
  const router = useRouter();
  const [model, setModel] = useState<OrderDirectivesInput>(scenarios[0]?.input ?? EMPTY);
  const [selected, setSelected] = useState<string[]>(scenarios[0]?.selectedRules ?? []);
  const [current, setCurrent] = useState<ScenarioDto | null>(scenarios[0] ?? null);
  const [importing, setImporting] = useState(false);
  const [saving, setSaving] = useState(false);

  const engineInput = useMemo(() => ({ ...model, rules: model.rules.filter((r) => selected.includes(r.id)) }), [model, selected]);
  const result = useQuery({ queryKey: ['ordering', JSON.stringify(engineInput)], queryFn: () => preview(engineInput), placeholderData: keepPreviousData, retry: false });
  const advice = useMemo(() => numericPrefixAdvice([...model.rules.map((r) => r.name), ...model.directives.map((d) => d.name)]), [model]);
  const save = useMutation({
    mutationFn: (v: { name: string; shared: boolean; overwrite: boolean }) =>
      runAction(saveScenarioAction, { id: v.overwrite && current?.mine ? current.id : undefined, name: v.name, shared: v.shared, note: current?.note ?? '', input: model, selectedRules: selected }),
    onSuccess: (r) => {
      toast.success(`Saved scenario ${r.name}`);
      setSaving(false);
      router.refresh();
    },
    onError: (e) => toast.error(errorMessage(e)),
  });

  const load = (id: string) => {
    const s = scenarios.find((x) => x.id === id);
    if (!s) return;
    setCurrent(s);
    setModel(s.input);
    setSelected(s.selectedRules);
  };
  const update = <K extends keyof OrderDirectivesInput>(k: K, i: number, patch: Partial<OrderDirectivesInput[K][number]>) =>
    setModel((m) => ({ ...m, [k]: m[k].map((row, j) => (j === i ? { ...row, ...patch } : row)) }));
  const remove = (k: keyof OrderDirectivesInput, i: number) => setModel((m) => ({ ...m, [k]: m[k].filter((_, j) => j !== i) }));
  const nextId = (prefix: string, ids: string[]) => {
    let n = ids.length + 1;
    while (ids.includes(`${prefix}${n}`)) n++;
    return `${prefix}${n}`;
  };
  const pErr = result.error as PreviewError | null;

  return (
    <div className="space-y-4">
      <div className="card flex flex-wrap items-center gap-2 p-3">
        <label className="text-xs font-medium text-slate-600" htmlFor="scenario">
          Scenario
        </label>
        <select id="scenario" className="input w-80" value={current?.id ?? ''} onChange={(e) => load(e.target.value)}>
          <option value="" disabled>
            Unsaved scenario
          </option>
          {scenarios.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} {s.shared ? '(shared)' : '(private)'}
            </option>
          ))}
        </select>
        <button type="button" className="btn" onClick={() => setSaving(true)}>
          Save…
        </button>
        <button type="button" className="btn" onClick={() => setImporting(true)}>
          Import JSON
        </button>
        <a className="btn" download="ordering-scenario.json" href={`data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify({ ...model, selectedRules: selected }, null, 2))}`}>
          Export JSON
        </a>
        <button
          type="button"
          className="btn"
          onClick={() => {
            setCurrent(null);
            setModel(EMPTY);
            setSelected([]);
          }}
        >
          New
        </button>
        {current?.note && <p className="w-full text-xs text-slate-600" data-testid="scenario-note">ⓘ {current.note}</p>}
      </div>

      <div className="grid gap-4 xl:grid-cols-2">
        <div className="space-y-4">
          <section className="card p-3" aria-labelledby="techniques-h">
            <div className="mb-2 flex items-center justify-between">
              <h2 id="techniques-h" className="font-semibold">
                Techniques
              </h2>
              <button type="button" className="btn py-0.5 text-xs" onClick={() => setModel((m) => ({ ...m, techniques: [...m.techniques, { name: `technique${m.techniques.length + 1}`, version: '1.0', multiInstance: true, generationMode: 'merged' }] }))}>
                Add technique
              </button>
            </div>
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Version</th>
                  <th>Multi-instance</th>
                  <th>Generation</th>
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {model.techniques.map((t, i) => (
                  <tr key={i}>
                    <td>
                      <input aria-label="Technique name" className="input py-1" value={t.name} onChange={(e) => update('techniques', i, { name: e.target.value })} />
                    </td>
                    <td>
                      <input aria-label="Technique version" className="input w-16 py-1" value={t.version ?? ''} onChange={(e) => update('techniques', i, { version: e.target.value })} />
                    </td>
                    <td>
                      <input type="checkbox" aria-label={`${t.name} is multi-instance`} checked={t.multiInstance} onChange={(e) => update('techniques', i, { multiInstance: e.target.checked })} />
                    </td>
                    <td>
                      <select aria-label="Generation mode" className="input py-1" value={t.generationMode ?? 'merged'} onChange={(e) => update('techniques', i, { generationMode: e.target.value })} disabled={!t.multiInstance}>
                        <option value="merged">merged</option>
                        <option value="separated">separated</option>
                        <option value="separated-with-parameters">separated-with-parameters</option>
                      </select>
                    </td>
                    <td>
                      <button type="button" className="text-xs text-red-700 hover:underline" onClick={() => remove('techniques', i)}>
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>

          <section className="card p-3" aria-labelledby="directives-h">
            <div className="mb-2 flex items-center justify-between">
              <h2 id="directives-h" className="font-semibold">
                Directives
              </h2>
              <button
                type="button"
                className="btn py-0.5 text-xs"
                disabled={!model.techniques.length}
                onClick={() => setModel((m) => ({ ...m, directives: [...m.directives, { id: nextId('d', m.directives.map((d) => d.id)), name: `Directive ${m.directives.length + 1}`, technique: m.techniques[0].name, priority: 5 }] }))}
              >
                Add directive
              </button>
            </div>
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Technique</th>
                  <th>Priority</th>
                  <th>Values (comma-separated)</th>
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {model.directives.map((d, i) => (
                  <tr key={d.id} data-directive={d.name}>
                    <td>
                      <input aria-label="Directive name" className="input py-1" value={d.name} onChange={(e) => update('directives', i, { name: e.target.value })} />
                    </td>
                    <td>
                      <select aria-label={`Technique of ${d.name}`} className="input py-1" value={d.technique} onChange={(e) => update('directives', i, { technique: e.target.value })}>
                        {model.techniques.map((t) => (
                          <option key={t.name}>{t.name}</option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <select aria-label={`Priority of ${d.name}`} className="input py-1" value={d.priority ?? 5} onChange={(e) => update('directives', i, { priority: Number(e.target.value) })}>
                        {Array.from({ length: 11 }, (_, p) => (
                          <option key={p} value={p}>
                            {PRIORITY_LABEL(p)}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <input
                        aria-label={`Values of ${d.name}`}
                        className="input py-1"
                        value={(d.values?.value ?? []).join(', ')}
                        onChange={(e) => update('directives', i, { values: { ...d.values, value: e.target.value.split(',').map((x) => x.trim()).filter(Boolean) } })}
                      />
                    </td>
                    <td>
                      <button type="button" className="text-xs text-red-700 hover:underline" onClick={() => remove('directives', i)}>
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>

          <section className="card p-3" aria-labelledby="rules-h">
            <div className="mb-2 flex items-center justify-between">
              <h2 id="rules-h" className="font-semibold">
                Rules <span className="text-xs font-normal text-slate-600">(tick the ones that apply to the node)</span>
              </h2>
              <button
                type="button"
                className="btn py-0.5 text-xs"
                onClick={() => {
                  const id = nextId('r', model.rules.map((r) => r.id));
                  setModel((m) => ({ ...m, rules: [...m.rules, { id, name: `Rule ${m.rules.length + 1}`, directiveIds: [] }] }));
                  setSelected((s) => [...s, id]);
                }}
              >
                Add rule
              </button>
            </div>
            <ul className="space-y-2">
              {model.rules.map((r, i) => (
                <li key={r.id} className="rounded border border-slate-200 p-2">
                  <div className="flex items-center gap-2">
                    <input
                      type="checkbox"
                      aria-label={`${r.name} applies to the node`}
                      checked={selected.includes(r.id)}
                      onChange={(e) => setSelected((s) => (e.target.checked ? [...s, r.id] : s.filter((x) => x !== r.id)))}
                    />
                    <input aria-label="Rule name" className="input py-1" value={r.name} onChange={(e) => update('rules', i, { name: e.target.value })} />
                    <button type="button" className="text-xs text-red-700 hover:underline" onClick={() => remove('rules', i)}>
                      Remove
                    </button>
                  </div>
                  <div className="mt-1 flex flex-wrap gap-2 pl-6">
                    {model.directives.map((d) => (
                      <label key={d.id} className="flex items-center gap-1 text-xs">
                        <input
                          type="checkbox"
                          checked={r.directiveIds.includes(d.id)}
                          onChange={(e) => update('rules', i, { directiveIds: e.target.checked ? [...r.directiveIds, d.id] : r.directiveIds.filter((x) => x !== d.id) })}
                        />
                        {d.name}
                      </label>
                    ))}
                  </div>
                </li>
              ))}
            </ul>
          </section>
        </div>

        <section className="card p-3" aria-labelledby="result-h" data-testid="ordering-result">
          <h2 id="result-h" className="mb-2 font-semibold">
            What the node gets, in order {result.isFetching && <span className="text-xs font-normal text-slate-600">updating…</span>}
          </h2>
          {pErr && (
            <div role="alert" className="mb-2 rounded-md border border-red-200 bg-red-50 p-2 text-red-800">
              <p className="font-medium">The input is not valid:</p>
              <ul className="list-disc pl-5">
                {pErr.errors?.map((e, i) => (
                  <li key={i}>
                    <code className="mono">{e.path}</code> {e.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {result.data && (
            <>
              {[...result.data.errors, ...result.data.warnings].map((w, i) => (
                <p key={i} className={`mb-2 rounded-md border p-2 text-sm ${'kind' in w && (w.kind === 'unstable' || w.kind === 'tie') ? 'border-amber-200 bg-amber-50 text-amber-900' : 'border-red-200 bg-red-50 text-red-800'}`} data-testid="ordering-warning">
                  <b>{w.kind}</b>: {w.message}
                </p>
              ))}
              {advice.map((a, i) => (
                <p key={i} className="mb-2 rounded-md border border-sky-200 bg-sky-50 p-2 text-sm text-sky-900">
                  <b>advice</b>: {a}
                </p>
              ))}
              {result.data.policies.length === 0 && <p className="text-slate-600">No directive applies: tick a rule that has directives.</p>}
              <ol className="space-y-2">
                {result.data.policies.map((p, i) => (
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
      </div>

      {importing && (
        <Modal title="Import a scenario as JSON" onClose={() => setImporting(false)} wide>
          <form
            className="space-y-2"
            onSubmit={(e) => {
              e.preventDefault();
              try {
                const parsed = JSON.parse(String(new FormData(e.currentTarget).get('json')));
                setModel({ techniques: parsed.techniques ?? [], directives: parsed.directives ?? [], rules: parsed.rules ?? [] });
                setSelected(parsed.selectedRules ?? (parsed.rules ?? []).map((r: { id: string }) => r.id));
                setCurrent(null);
                setImporting(false);
              } catch (err) {
                toast.error(`Not valid JSON: ${(err as Error).message}`);
              }
            }}
          >
            <textarea name="json" className="input mono h-64" placeholder='{"techniques": [], "directives": [], "rules": []}' autoFocus />
            <div className="flex justify-end gap-2">
              <button type="button" className="btn" onClick={() => setImporting(false)}>
                Cancel
              </button>
              <button type="submit" className="btn btn-primary">
                Import
              </button>
            </div>
          </form>
        </Modal>
      )}
      {saving && (
        <Modal title="Save this scenario" onClose={() => setSaving(false)}>
          <form
            className="space-y-3"
            onSubmit={(e) => {
              e.preventDefault();
              const f = new FormData(e.currentTarget);
              save.mutate({ name: String(f.get('name')), shared: f.get('shared') === 'on', overwrite: f.get('overwrite') === 'on' });
            }}
          >
            <label className="block text-xs font-medium text-slate-600">
              Name
              <input name="name" required maxLength={100} defaultValue={current?.mine ? current.name : ''} className="input mt-1" autoFocus />
            </label>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="shared" defaultChecked={current?.shared ?? false} /> Shared with everyone (otherwise private)
            </label>
            {current?.mine && (
              <label className="flex items-center gap-2 text-sm">
                <input type="checkbox" name="overwrite" defaultChecked /> Overwrite “{current.name}”
              </label>
            )}
            <div className="flex justify-end gap-2">
              <button type="button" className="btn" onClick={() => setSaving(false)}>
                Cancel
              </button>
              <button type="submit" className="btn btn-primary" disabled={save.isPending}>
                Save
              </button>
            </div>
          </form>
        </Modal>
      )}
    </div>
  );
}
