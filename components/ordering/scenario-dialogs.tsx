'use client';

import { toast } from 'sonner';
import { runAction } from '@/lib/actions/client';
import { saveScenarioAction } from '@/lib/actions/previews/scenario-actions';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import type { OrderDirectivesInput } from '@/lib/domain/ordering';
import type { ScenarioDto } from '@/lib/types/ordering';
import { Field, FormAlert } from '../form-field';
import { Modal } from '../modal';

/** Paste a scenario exported as JSON (or written by hand). */
export function ImportScenarioDialog({ onImport, onClose }: { onImport: (model: OrderDirectivesInput, selectedRules: string[]) => void; onClose: () => void }) {
  return (
    <Modal title="Import a scenario as JSON" onClose={onClose} wide>
      <form
        className="space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          try {
            const parsed = JSON.parse(String(new FormData(e.currentTarget).get('json')));
            onImport({ techniques: parsed.techniques ?? [], directives: parsed.directives ?? [], rules: parsed.rules ?? [] }, parsed.selectedRules ?? (parsed.rules ?? []).map((r: { id: string }) => r.id));
          } catch (err) {
            toast.error(`Not valid JSON: ${(err as Error).message}`);
          }
        }}
      >
        <textarea name="json" aria-label="Scenario JSON" className="input mono h-64" placeholder='{"techniques": [], "directives": [], "rules": []}' autoFocus />
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary">
            Import
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Save the model as a new scenario, or over the current one when it is the user's own. */
export function SaveScenarioDialog({ current, model, selected, onClose }: { current: ScenarioDto | null; model: OrderDirectivesInput; selected: string[]; onClose: () => void }) {
  const save = useActionMutation(
    (v: { name: string; shared: boolean; overwrite: boolean }) =>
      runAction(saveScenarioAction, { id: v.overwrite && current?.mine ? current.id : undefined, name: v.name, shared: v.shared, note: current?.note ?? '', input: model, selectedRules: selected }),
    { success: (r) => `Saved scenario ${r.name}`, then: () => onClose(), errors: 'inline' },
  );
  return (
    <Modal title="Save this scenario" onClose={onClose}>
      <form
        className="space-y-3"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          save.mutate({ name: String(f.get('name')), shared: f.get('shared') === 'on', overwrite: f.get('overwrite') === 'on' });
        }}
      >
        <Field label="Name" name="name" errors={save.formErrors}>
          {(c) => <input {...c} required maxLength={100} defaultValue={current?.mine ? current.name : ''} className="input mt-1" autoFocus />}
        </Field>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="shared" defaultChecked={current?.shared ?? false} /> Shared with everyone (otherwise private)
        </label>
        {current?.mine && (
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="overwrite" defaultChecked /> Overwrite “{current.name}”
          </label>
        )}
        <FormAlert errors={save.formErrors} fields={['name']} />
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={save.isPending}>
            Save
          </button>
        </div>
      </form>
    </Modal>
  );
}
