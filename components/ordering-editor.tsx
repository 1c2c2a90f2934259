'use client';

import { useMemo, useState } from 'react';
import type { OrderDirectivesInput } from '@/lib/domain/ordering';
import type { ScenarioDto } from '@/lib/types/ordering';
import { DirectivesTable, RulesList, TechniquesTable } from './ordering/model-tables';
import { OrderingResult } from './ordering/ordering-result';
import { ImportScenarioDialog, SaveScenarioDialog } from './ordering/scenario-dialogs';
import { useOrderingPreview } from './ordering/use-ordering-preview';

const EMPTY: OrderDirectivesInput = { techniques: [], directives: [], rules: [] };

/**
 * The ordering sandbox: techniques, directives and rules on the left, what a
 * node gets on the right. The engine runs in the browser (lib/domain/ordering,
 * the one the API's preview route runs), so every edit shows at once without
 * a request; only saving a scenario goes to the server.
 */
export function OrderingEditor({ scenarios }: { scenarios: ScenarioDto[] }) {
  const [model, setModel] = useState<OrderDirectivesInput>(scenarios[0]?.input ?? EMPTY);
  const [selected, setSelected] = useState<string[]>(scenarios[0]?.selectedRules ?? []);
  const [current, setCurrent] = useState<ScenarioDto | null>(scenarios[0] ?? null);
  const [importing, setImporting] = useState(false);
  const [saving, setSaving] = useState(false);
  // Memoised: the deferred preview compares inputs by identity.
  const engineInput = useMemo(() => ({ ...model, rules: model.rules.filter((r) => selected.includes(r.id)) }), [model, selected]);
  const result = useOrderingPreview(engineInput);

  const load = (id: string) => {
    const s = scenarios.find((x) => x.id === id);
    if (!s) return;
    setCurrent(s);
    setModel(s.input);
    setSelected(s.selectedRules);
  };

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
          <TechniquesTable model={model} setModel={setModel} />
          <DirectivesTable model={model} setModel={setModel} />
          <RulesList model={model} setModel={setModel} selected={selected} setSelected={setSelected} />
        </div>
        <OrderingResult model={model} result={result} />
      </div>

      {importing && (
        <ImportScenarioDialog
          onClose={() => setImporting(false)}
          onImport={(m, rules) => {
            setModel(m);
            setSelected(rules);
            setCurrent(null);
            setImporting(false);
          }}
        />
      )}
      {saving && <SaveScenarioDialog current={current} model={model} selected={selected} onClose={() => setSaving(false)} />}
    </div>
  );
}
