'use client';

import { useRef, useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { deleteStageAction, moveStageAction, putStageAction } from '@/lib/actions/admin/stage-actions';
import { Field, InlineForm } from './form-field';
import { ConfirmDialog } from './modal';
import { ACTIONS, DataTable, RowButton } from '@/components/data-table';

type Stage = { name: string; position: number; description: string; requireArtifacts: boolean; policies: number; nodes: number; canManage: boolean };

export function AdminStages({ stages, canCreate }: { stages: Stage[]; canCreate: boolean }) {
  const [deleting, setDeleting] = useState<Stage | null>(null);
  const put = useActionMutation((v: { name: string; position?: number; description?: string; require_artifacts?: boolean }) => runAction(putStageAction, v), {
    success: (r) => (r.status === 201 ? `Created stage ${r.name}` : `Saved ${r.name}`),
  });
  const form = useRef<HTMLFormElement>(null);
  const create = useActionMutation((v: { name: string; description: string }) => runAction(putStageAction, v), {
    success: (r) => (r.status === 201 ? `Created stage ${r.name}` : `Saved ${r.name}`),
    then: () => form.current?.reset(),
    errors: 'inline',
  });
  const remove = useActionMutation((name: string) => runAction(deleteStageAction, { name }), {
    success: (r) => `Deleted stage ${r.name}; ${r.policies} association${r.policies === 1 ? '' : 's'} removed (revisions kept)`,
    then: () => setDeleting(null),
  });
  // One write, one toast, one audit event per move.
  const reorder = useActionMutation((v: { name: string; direction: 'earlier' | 'later' }) => runAction(moveStageAction, v), {
    success: (r) => `Order: ${r.order.join(' → ')}`,
  });
  const move = (s: Stage, delta: number) => reorder.mutate({ name: s.name, direction: delta < 0 ? 'earlier' : 'later' });
  return (
    <div className="space-y-4">
      {canCreate && (
        <InlineForm
          label="Add a stage"
          formRef={form}
          submit="Add stage (last in order)"
          pending={create.isPending}
          errors={create.formErrors}
          fields={['name', 'description']}
          onData={(f) => create.mutate({ name: String(f.get('name')), description: String(f.get('description') ?? '') })}
        >
          <Field label="New stage" name="name" errors={create.formErrors}>
            {(c) => <input {...c} required className="input mt-1 w-44" />}
          </Field>
          <Field label="Description" name="description" errors={create.formErrors} className="flex-1">
            {(c) => <input {...c} maxLength={500} className="input mt-1" />}
          </Field>
        </InlineForm>
      )}
      <DataTable testId="stages-table" columns={['Order', 'Stage', 'Description', 'Requires artifacts', 'Policies', 'Nodes', ACTIONS]} rows={stages}>
        {(s, i) => (
          <tr key={s.name} data-stage={s.name}>
            <td className="whitespace-nowrap">
              <button type="button" className="btn px-1.5 py-0 text-xs" aria-label={`Move ${s.name} earlier`} disabled={reorder.isPending || !s.canManage || i === 0 || !stages[i - 1].canManage} onClick={() => move(s, -1)}>
                ↑
              </button>{' '}
              <button type="button" className="btn px-1.5 py-0 text-xs" aria-label={`Move ${s.name} later`} disabled={reorder.isPending || !s.canManage || i === stages.length - 1 || !stages[i + 1].canManage} onClick={() => move(s, 1)}>
                ↓
              </button>
            </td>
            <td className="font-medium">{s.name}</td>
            <td>
              <input
                aria-label={`Description of ${s.name}`}
                className="input py-1"
                defaultValue={s.description}
                disabled={!s.canManage}
                onBlur={(e) => e.target.value !== s.description && put.mutate({ name: s.name, description: e.target.value })}
              />
            </td>
            <td>
              <RequireArtifactsToggle
                key={`${s.name}:${s.requireArtifacts}`}
                stage={s.name}
                initial={s.requireArtifacts}
                disabled={!s.canManage}
                save={(value) => put.mutateAsync({ name: s.name, require_artifacts: value })}
              />
            </td>
            <td>{s.policies}</td>
            <td>{s.nodes}</td>
            <td className="text-right">
              {s.canManage && (
                <RowButton onClick={() => setDeleting(s)}>
                  Delete…
                </RowButton>
              )}
            </td>
          </tr>
        )}
      </DataTable>
      {deleting && (
        <ConfirmDialog
          title={`Delete stage ${deleting.name}?`}
          confirmLabel={`Delete ${deleting.name}`}
          danger
          typeToConfirm={deleting.name}
          pending={remove.isPending} onConfirm={() => remove.mutate(deleting.name)} onClose={() => setDeleting(null)}>
          Its {deleting.policies} polic{deleting.policies === 1 ? 'y association' : 'y associations'} and its grants are removed; the revisions stay, and the pointer history keeps what ran here. {deleting.nodes} node
          {deleting.nodes === 1 ? '' : 's'} will no longer belong to a stage.
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The stage's "requires artifacts" rule: shows the new state at once, and returns to the old one if saving fails. */
function RequireArtifactsToggle({ stage, initial, disabled, save }: { stage: string; initial: boolean; disabled: boolean; save: (value: boolean) => Promise<unknown> }) {
  const [value, setValue] = useState(initial);
  const [pending, setPending] = useState(false);
  return (
    <label className="flex items-center gap-1.5 text-xs text-slate-700">
      <input
        type="checkbox"
        checked={value}
        disabled={disabled || pending}
        aria-label={`${stage} requires every cookbook on the server`}
        onChange={(e) => {
          const next = e.target.checked;
          setValue(next);
          setPending(true);
          save(next)
            .catch(() => setValue(!next))
            .finally(() => setPending(false));
        }}
      />
      {value ? 'yes' : 'no'}
    </label>
  );
}
