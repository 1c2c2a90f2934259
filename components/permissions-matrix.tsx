'use client';

import { useState } from 'react';
import { toast } from 'sonner';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { setStageGrantAction } from '@/lib/actions/admin/set-stage-grant-action';
import { ConfirmDialog } from './modal';

type Level = 'none' | 'view' | 'promote' | 'manage';
interface Props {
  stages: { name: string; canManage: boolean }[];
  subjects: { key: string; type: 'user' | 'team'; id: string; label: string; note: string }[];
  levels: Record<string, string>;
}
type Change = { stage: string; type: 'user' | 'team'; id: string; label: string; level: Level; previous: Level };

const LABEL: Record<Level, string> = { none: '—', view: 'view', promote: 'promote', manage: 'manage' };

/**
 * The grants per stage. Columns the viewer cannot manage are shown as text, not
 * as disabled controls that look editable. A grant of `manage`, or any change on
 * the last stage (production), asks first; every change can be undone from its toast.
 */
export function PermissionsMatrix({ stages, subjects, levels }: Props) {
  const [pending, setPending] = useState<Change | null>(null);
  const mutation = useActionMutation(
    (v: Change) => runAction(setStageGrantAction, { stage: v.stage, subject: v.type === 'user' ? { type: 'user', email: v.id } : { type: 'team', name: v.id }, level: v.level }),
    {
      then: (r, v) => {
        setPending(null);
        if (!r.changed) return void toast('No change');
        toast.success(`${r.subject}: ${r.level} on ${r.stage}`, {
          action: { label: 'Undo', onClick: () => mutation.mutate({ ...v, level: v.previous, previous: v.level }) },
        });
      },
    },
  );
  const sensitive = (c: Change, i: number) => c.level === 'manage' || c.previous === 'manage' || i === stages.length - 1;
  const editable = stages.some((s) => s.canManage);
  return (
    <div className="space-y-3">
      {!editable && (
        <p className="card p-3 text-slate-700" data-testid="matrix-read-only">
          Read-only: you do not manage any stage. Only admins and those with <b>manage</b> on a stage can change its grants.
        </p>
      )}
      <div className="card overflow-x-auto" tabIndex={0} role="region" aria-label="Permissions per stage">
        <table className="table" data-testid="permissions-matrix">
          <thead>
            <tr>
              <th scope="col">Team or user</th>
              {stages.map((s) => (
                <th key={s.name} scope="col">
                  {s.name}
                  {editable && !s.canManage && <span className="block font-normal normal-case tracking-normal">read-only</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {subjects.map((subj) => (
              <tr key={subj.key} data-subject={`${subj.type}:${subj.id}`}>
                <th scope="row" className="!bg-white !text-sm !normal-case !tracking-normal !text-slate-900">
                  <span className="badge mr-1 bg-slate-100 text-slate-700">{subj.type === 'team' ? 'team' : 'user'}</span>
                  <span className="font-medium text-slate-800">{subj.label}</span>
                  <div className="text-xs font-normal text-slate-600">{subj.note}</div>
                </th>
                {stages.map((s, i) => {
                  const level = (levels[`${subj.key}|${s.name}`] ?? 'none') as Level;
                  if (!s.canManage) {
                    return (
                      <td key={s.name} data-level={level} className={level === 'none' ? 'text-slate-600' : 'font-medium'}>
                        {level === 'none' ? <span aria-label="no grant">—</span> : level}
                      </td>
                    );
                  }
                  return (
                    <td key={s.name}>
                      <select
                        aria-label={`${subj.label} on ${s.name}`}
                        className={`input w-28 py-1 text-xs ${level === 'none' ? 'text-slate-700' : 'font-medium'}`}
                        value={level}
                        disabled={mutation.isPending}
                        onChange={(e) => {
                          const change: Change = { stage: s.name, type: subj.type, id: subj.id, label: subj.label, level: e.target.value as Level, previous: level };
                          if (sensitive(change, i)) setPending(change);
                          else mutation.mutate(change);
                        }}
                      >
                        {(Object.keys(LABEL) as Level[]).map((l) => (
                          <option key={l} value={l}>
                            {LABEL[l]}
                          </option>
                        ))}
                      </select>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pending && (
        <ConfirmDialog
          title={`Change ${pending.label} on ${pending.stage} to ${LABEL[pending.level]}?`}
          confirmLabel="Change the grant"
          pending={mutation.isPending}
          onConfirm={() => mutation.mutate(pending)}
          onClose={() => setPending(null)}
        >
          {pending.level === 'manage'
            ? `manage lets ${pending.label} change what runs in ${pending.stage} and give others access to it.`
            : pending.previous === 'manage'
              ? `${pending.label} will no longer manage ${pending.stage}.`
              : `${pending.stage} is the last stage: this changes who may change what runs in production.`}{' '}
          It was {LABEL[pending.previous]}.
        </ConfirmDialog>
      )}
    </div>
  );
}
