'use client';

import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { putStageAction, stageValidatorAction } from '@/lib/actions/admin/stage-actions';
import { age, dateTime } from '@/lib/format';
import { ConfirmDialog } from './modal';
import { SecretDialog } from './secret-dialog';
import { ACTIONS, DataTable, RowButton } from '@/components/data-table';

type Row = { name: string; openEnrollment: boolean; canManage: boolean; validator: { name: string; createdAt: string; lastSeenAt: string | null } | null };

/**
 * Issue 41 (docs/stage-binding.md): how nodes enter each stage. A node's stage is the console's fact: a client
 * places its node in a stage once, when it first names one, and only where its enrollment allows: the
 * organization's validator's clients into stages with open enrollment, a stage validator's clients into its stage.
 */
export function StageEnrollmentAdmin({ stages, canValidators }: { stages: Row[]; canValidators: boolean }) {
  const [secret, setSecret] = useState<{ name: string; stage: string; privateKey: string } | null>(null);
  const [rotating, setRotating] = useState<Row | null>(null);
  const put = useActionMutation((v: { name: string; open_enrollment: boolean }) => runAction(putStageAction, v), {
    success: (_r, v) => `${v.name}: open enrollment ${v.open_enrollment ? 'on' : 'off'}`,
  });
  const validator = useActionMutation((stage: string) => runAction(stageValidatorAction, { stage }), {
    then: (r) => {
      setRotating(null);
      setSecret(r);
    },
  });
  return (
    <section className="card mt-4 p-4" aria-labelledby="enrollment-heading">
      <h2 id="enrollment-heading" className="font-medium">
        Node enrollment
      </h2>
      <p className="mt-1 max-w-3xl text-sm text-slate-600">
        A node places itself in a stage once, on its first chef-client run; afterwards only a user who may change what runs in both stages moves it. Nodes registered through the organization&apos;s validator may enter only stages with
        open enrollment (off for a new stage); a stage validator&apos;s nodes enter only its stage (<code className="mono">npm run chef:validator -- --stage STAGE</code>).
      </p>
      <DataTable testId="stage-enrollment" frame="mt-3 overflow-x-auto" columns={['Stage', 'Open enrollment', 'Stage validator', ACTIONS]} rows={stages}>
        {(s) => (
          <tr key={s.name} data-enrollment-stage={s.name}>
            <td className="font-medium">{s.name}</td>
            <td>
              <label className="flex items-center gap-1.5 text-xs text-slate-700">
                <input
                  type="checkbox"
                  defaultChecked={s.openEnrollment}
                  key={`${s.name}:${s.openEnrollment}`}
                  disabled={!s.canManage || put.isPending}
                  aria-label={`Nodes registered through the organization's validator may enter ${s.name}`}
                  onChange={(e) => put.mutate({ name: s.name, open_enrollment: e.target.checked })}
                />
                {s.openEnrollment ? 'open' : 'closed'}
              </label>
            </td>
            <td className="text-sm">
              {s.validator ? (
                <>
                  <span className="mono">{s.validator.name}</span>
                  <span className="text-slate-600">
                    {' '}
                    — created {dateTime(s.validator.createdAt)}, last used {s.validator.lastSeenAt ? age(s.validator.lastSeenAt) : 'never'}
                  </span>
                </>
              ) : (
                <span className="text-slate-600">none</span>
              )}
            </td>
            <td className="text-right">
              {canValidators && (
                <RowButton disabled={validator.isPending} onClick={() => (s.validator ? setRotating(s) : validator.mutate(s.name))}>
                  {s.validator ? 'Rotate validator key' : 'Create stage validator'}
                </RowButton>
              )}
            </td>
          </tr>
        )}
      </DataTable>
      {rotating && (
        <ConfirmDialog title={`Rotate ${rotating.name}'s validator key?`} confirmLabel="Rotate key" danger onConfirm={() => validator.mutate(rotating.name)} onClose={() => setRotating(null)} pending={validator.isPending}>
          The current key of {rotating.validator?.name} stops working at once: nodes not yet registered into {rotating.name} need the new key. Registered nodes keep their own keys.
        </ConfirmDialog>
      )}
      {secret && (
        <SecretDialog title={`${secret.stage} validator private key`} secret={secret.privateKey} filename={`${secret.name}.pem`} onDone={() => setSecret(null)}>
          Nodes using it set <code className="mono">validation_client_name &quot;{secret.name}&quot;</code> and may be placed only in stage {secret.stage}.
        </SecretDialog>
      )}
    </section>
  );
}
