'use client';

import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { addFreezeAction, deleteFreezeAction, setStageApproverAction, setStageProtectionAction } from '@/lib/actions/requests/stage-guard-actions';
import type { StageGuardState } from '@/lib/types/guards';
import { StageApprovers } from './stage-approvers';
import { StageFreezes, type NewFreeze } from './stage-freezes';
import { StageProtectionEditor, type ProtectionValue } from './stage-protection-editor';

/** "user:<email>" / "team:<name>" → the approver input's subject. */
function subjectOf(principal: string): { type: 'user'; email: string } | { type: 'team'; name: string } {
  const [type, ...rest] = principal.split(':');
  const value = rest.join(':');
  return type === 'team' ? { type: 'team', name: value } : { type: 'user', email: value };
}

/**
 * The freeze windows as the list below shows them, every one counted: "2 freeze windows (1 in force, 1 past)".
 * (Counting only the current ones read "0 freeze windows" above a listed past window.)
 */
export function freezeCount(freezes: { active: unknown; past: boolean }[]): string {
  const n = freezes.length;
  if (n === 0) return 'no freeze windows';
  const active = freezes.filter((f) => f.active).length;
  const past = freezes.filter((f) => f.past).length;
  const parts = [active ? `${active} in force` : null, past ? `${past} past` : null].filter(Boolean);
  const all = parts.length === 1 && (active === n || past === n);
  return `${n} freeze window${n === 1 ? '' : 's'}${parts.length ? ` (${all ? (n === 1 ? (active ? 'in force' : 'past') : `all ${active ? 'in force' : 'past'}`) : parts.join(', ')})` : ''}`;
}

/** Per stage: approval settings and rules, approvers, freeze windows (issue 15). Only managers of a stage edit it. */
export function StageGuardsAdmin({ stages, users, teams }: { stages: StageGuardState[]; users: { id: string; email: string }[]; teams: { id: string; name: string }[] }) {
  const protection = useActionMutation(
    (v: { stage: string } & ProtectionValue) => runAction(setStageProtectionAction, { stage: v.stage, protected: v.enabled, approvalsRequired: v.approvalsRequired, rules: v.rules }),
    { success: (_r, v) => (v.enabled ? `${v.stage} requires approval: settings saved` : `${v.stage} no longer requires approval`) },
  );
  const approver = useActionMutation((v: { stage: string; principal: string; approver: boolean }) => runAction(setStageApproverAction, { stage: v.stage, subject: subjectOf(v.principal), approver: v.approver }), {
    success: (_r, v) => `${v.principal.replace(':', ' ')} ${v.approver ? 'may now approve' : 'no longer approves'} requests into ${v.stage}`,
  });
  const addFreeze = useActionMutation((v: { stage: string } & NewFreeze) => runAction(addFreezeAction, { stage: v.stage, startsAt: v.starts_at, endsAt: v.ends_at, reason: v.reason, weekly: v.weekly }), {
    success: (_r, v) => `Freeze added to ${v.stage}`,
  });
  const deleteFreeze = useActionMutation((v: { stage: string; id: string }) => runAction(deleteFreezeAction, v), { success: (_r, v) => `Freeze deleted from ${v.stage}` });
  const quiet = <T,>(p: Promise<T>) => p.catch(() => undefined);
  return (
    <section aria-labelledby="guards-heading" className="mt-6 space-y-3">
      <h2 id="guards-heading" className="text-lg font-semibold">
        Approvals and freezes
      </h2>
      <p className="text-sm text-slate-600">
        A stage that requires approval turns every way of moving a pointer into it (board, compare, bulk, rollback, API, <span className="mono">chef push</span>) into a request. How many approvals it needs follows from
        what the change contains. During a freeze nothing moves in unless a manager of the stage overrides it with a written reason.
      </p>
      {stages.map((s) => (
        <details key={s.stage} className="card p-4" data-testid="stage-guards" data-stage={s.stage} open={s.protected || s.freezes.some((f) => f.active)}>
          <summary className="cursor-pointer font-semibold">
            {s.stage}
            <span className="ml-2 text-sm font-normal text-slate-600">
              {s.protected ? `requires approval (${s.rules.length} rule${s.rules.length === 1 ? '' : 's'})` : 'no approval needed'} · {s.approvers.length} approver{s.approvers.length === 1 ? '' : 's'} ·{' '}
              <span data-testid="freeze-count">{freezeCount(s.freezes)}</span>
              {!s.viewer_can_manage && ' · read-only (you do not manage this stage)'}
            </span>
          </summary>
          <div className="mt-3 grid gap-5 lg:grid-cols-2 [&>*]:min-w-0">
            <div>
              <h3 className="mb-2 text-xs font-semibold uppercase text-slate-600">Approval</h3>
              <StageProtectionEditor
                key={JSON.stringify([s.protected, s.approvals_required, s.rules])}
                stage={s.stage}
                initial={{ enabled: s.protected, approvalsRequired: s.protected ? s.approvals_required : 1, rules: s.rules }}
                disabled={!s.viewer_can_manage}
                pending={protection.isPending}
                onSave={(v) => protection.mutate({ stage: s.stage, ...v })}
              />
            </div>
            <div className="space-y-5">
              <div>
                <h3 className="mb-2 text-xs font-semibold uppercase text-slate-600">Approvers</h3>
                <StageApprovers
                  stage={s.stage}
                  approvers={s.approvers}
                  users={users}
                  teams={teams}
                  disabled={!s.viewer_can_manage}
                  pending={approver.isPending}
                  onAdd={(principal) => approver.mutate({ stage: s.stage, principal, approver: true })}
                  onRemove={(principal) => quiet(approver.mutateAsync({ stage: s.stage, principal, approver: false }))}
                />
              </div>
              <div>
                <h3 className="mb-2 text-xs font-semibold uppercase text-slate-600">Freeze windows</h3>
                <StageFreezes
                  stage={s.stage}
                  freezes={s.freezes}
                  disabled={!s.viewer_can_manage}
                  pending={addFreeze.isPending || deleteFreeze.isPending}
                  onAdd={(f) => addFreeze.mutateAsync({ stage: s.stage, ...f })}
                  onDelete={(id) => quiet(deleteFreeze.mutateAsync({ stage: s.stage, id }))}
                />
              </div>
            </div>
          </div>
        </details>
      ))}
    </section>
  );
}
