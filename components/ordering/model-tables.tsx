'use client';

import type { Dispatch, SetStateAction } from 'react';
import type { OrderDirectivesInput } from '@/lib/domain/ordering';
import { ACTIONS, DataTable, RowButton } from '@/components/data-table';

const PRIORITY_LABEL = (p: number) => (p === 0 ? '0 · Highest' : p === 5 ? '5 · Default' : p === 10 ? '10 · Lowest' : String(p));

type Model = OrderDirectivesInput;
type SetModel = Dispatch<SetStateAction<Model>>;

/** Row edits on one of the model's lists. */
function rowEditors(setModel: SetModel) {
  const update = <K extends keyof Model>(k: K, i: number, patch: Partial<Model[K][number]>) => setModel((m) => ({ ...m, [k]: m[k].map((row, j) => (j === i ? { ...row, ...patch } : row)) }));
  const remove = (k: keyof Model, i: number) => setModel((m) => ({ ...m, [k]: m[k].filter((_, j) => j !== i) }));
  return { update, remove };
}

/** The next free id with this prefix (`d3`, `r5`). */
export function nextId(prefix: string, ids: string[]) {
  let n = ids.length + 1;
  while (ids.includes(`${prefix}${n}`)) n++;
  return `${prefix}${n}`;
}

/** The techniques table: name, version, multi-instance and generation mode. */
export function TechniquesTable({ model, setModel }: { model: Model; setModel: SetModel }) {
  const { update, remove } = rowEditors(setModel);
  return (
    <section className="card p-3" aria-labelledby="techniques-h">
      <div className="mb-2 flex items-center justify-between">
        <h2 id="techniques-h" className="font-semibold">
          Techniques
        </h2>
        <RowButton onClick={() => setModel((m) => ({ ...m, techniques: [...m.techniques, { name: `technique${m.techniques.length + 1}`, version: '1.0', multiInstance: true, generationMode: 'merged' }] }))}>
          Add technique
        </RowButton>
      </div>
      <DataTable frame={null} columns={['Name', 'Version', 'Multi-instance', 'Generation', ACTIONS]} rows={model.techniques}>
        {(t, i) => (
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
        )}
      </DataTable>
    </section>
  );
}

/** The directives table: name, technique, priority and values. */
export function DirectivesTable({ model, setModel }: { model: Model; setModel: SetModel }) {
  const { update, remove } = rowEditors(setModel);
  return (
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
      <DataTable frame={null} columns={['Name', 'Technique', 'Priority', 'Values (comma-separated)', ACTIONS]} rows={model.directives}>
        {(d, i) => (
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
        )}
      </DataTable>
    </section>
  );
}

/** The rules: which directives each applies, and which rules apply to the node (`selected`). */
export function RulesList({ model, setModel, selected, setSelected }: { model: Model; setModel: SetModel; selected: string[]; setSelected: Dispatch<SetStateAction<string[]>> }) {
  const { update, remove } = rowEditors(setModel);
  return (
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
  );
}
