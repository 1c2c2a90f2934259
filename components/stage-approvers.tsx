'use client';

import { useState } from 'react';
import type { ApproverDto } from '@/lib/types/guards';
import { ConfirmDialog } from './modal';

type Approver = ApproverDto;

/** Who may approve requests into a stage: users or teams, separate from view/promote/manage. */
export function StageApprovers({
  stage,
  approvers,
  users,
  teams,
  disabled,
  pending,
  onAdd,
  onRemove,
}: {
  stage: string;
  approvers: Approver[];
  users: { id: string; email: string }[];
  teams: { id: string; name: string }[];
  disabled: boolean;
  pending: boolean;
  onAdd: (principal: string) => void;
  onRemove: (principal: string) => Promise<unknown>;
}) {
  const [choice, setChoice] = useState('');
  const [removing, setRemoving] = useState<Approver | null>(null);
  const granted = new Set(approvers.map((a) => a.principal));
  return (
    <div className="space-y-2" data-testid="stage-approvers">
      {approvers.length === 0 ? (
        <p className="text-sm text-slate-600">No approvers: a request into {stage} cannot be approved until someone is granted.</p>
      ) : (
        <ul className="flex flex-wrap gap-1.5" aria-label={`Approvers of ${stage}`}>
          {approvers.map((a) => (
            <li key={a.principal} className="flex items-center gap-1 rounded border border-slate-200 bg-slate-50 px-2 py-0.5 text-sm">
              <span>{a.type === 'team' ? `team ${a.name}` : a.name}</span>
              {!disabled && (
                <button type="button" className="ml-1 text-xs text-red-700 hover:underline" onClick={() => setRemoving(a)}>
                  remove<span className="sr-only"> {a.name} as approver of {stage}</span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!disabled && (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (choice) onAdd(choice);
            setChoice('');
          }}
        >
          <label className="flex flex-col text-xs font-medium text-slate-600">
            Add an approver
            <select className="input mt-1 w-64" value={choice} onChange={(e) => setChoice(e.target.value)} aria-label={`New approver of ${stage}`}>
              <option value="">Choose a user or team…</option>
              <optgroup label="Teams">
                {teams.filter((t) => !granted.has(`team:${t.name}`)).map((t) => (
                  <option key={t.id} value={`team:${t.name}`}>
                    team {t.name}
                  </option>
                ))}
              </optgroup>
              <optgroup label="Users">
                {users.filter((u) => !granted.has(`user:${u.email}`)).map((u) => (
                  <option key={u.id} value={`user:${u.email}`}>
                    {u.email}
                  </option>
                ))}
              </optgroup>
            </select>
          </label>
          <button type="submit" className="btn" disabled={!choice || pending}>
            Grant approval
          </button>
        </form>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.type === 'team' ? `team ${removing.name}` : removing.name} as approver of ${stage}?`}
          confirmLabel="Remove approver"
          danger
          pending={pending}
          onConfirm={() => onRemove(removing.principal).then(() => setRemoving(null))}
          onClose={() => setRemoving(null)}
        >
          Their approvals already given stay on the requests; they cannot approve new ones.
        </ConfirmDialog>
      )}
    </div>
  );
}
