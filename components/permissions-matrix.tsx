'use client';

import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { setStageGrantAction } from '@/lib/actions/admin/set-stage-grant-action';

type Level = 'none' | 'view' | 'promote' | 'manage';
interface Props {
  stages: { name: string; canManage: boolean }[];
  subjects: { key: string; type: 'user' | 'team'; id: string; label: string; note: string }[];
  levels: Record<string, string>;
}

export function PermissionsMatrix({ stages, subjects, levels }: Props) {
  const mutation = useActionMutation(
    (v: { stage: string; type: 'user' | 'team'; id: string; level: Level }) =>
      runAction(setStageGrantAction, { stage: v.stage, subject: v.type === 'user' ? { type: 'user', email: v.id } : { type: 'team', name: v.id }, level: v.level }),
    { success: (r) => (r.changed ? `${r.subject}: ${r.level} on ${r.stage}` : 'No change') },
  );
  return (
    <div className="card overflow-x-auto">
      <table className="table" data-testid="permissions-matrix">
        <thead>
          <tr>
            <th>Team or user</th>
            {stages.map((s) => (
              <th key={s.name}>{s.name}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {subjects.map((subj) => (
            <tr key={subj.key} data-subject={`${subj.type}:${subj.id}`}>
              <th scope="row" className="!bg-white !text-sm !normal-case !tracking-normal">
                <span className="badge mr-1 bg-slate-100 text-slate-600">{subj.type}</span>
                <span className="font-medium text-slate-800">{subj.label}</span>
                <div className="text-xs font-normal text-slate-400">{subj.note}</div>
              </th>
              {stages.map((s) => {
                const level = (levels[`${subj.key}|${s.name}`] ?? 'none') as Level;
                return (
                  <td key={s.name}>
                    <select
                      aria-label={`${subj.label} on ${s.name}`}
                      className={`input w-28 py-1 text-xs ${level === 'none' ? 'text-slate-400' : 'font-medium'}`}
                      value={level}
                      disabled={!s.canManage || mutation.isPending}
                      onChange={(e) => mutation.mutate({ stage: s.name, type: subj.type, id: subj.id, level: e.target.value as Level })}
                    >
                      <option value="none">—</option>
                      <option value="view">view</option>
                      <option value="promote">promote</option>
                      <option value="manage">manage</option>
                    </select>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
