/** Issue 29: the guard's dry run: what confirming a move would do now (nothing is stored). */
import { defineRoute, pathInput, snake, wireBody } from '../contract';
import { previewMoveProblems, ZPreviewMoveFields } from '@/lib/validation/move-preview';

export const movePreviewRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/policies/{name}/preview',
  summary: "The guard's answer before the click (stage.view): whether a promotion, a single-cookbook promotion or a rollback into this stage would move now, open a request (how many approvals, which rules), or be refused (freeze, bad revision, promotion gate), for the caller. Nothing is stored.",
  params: { group: 'The stage the pointer would move in', name: 'Policy name' },
  body: wireBody(ZPreviewMoveFields, { omit: ['policy', 'stage'] }).superRefine((v, ctx) => {
    for (const p of previewMoveProblems(v)) ctx.addIssue({ code: 'custom', path: [snake(p.field)], message: p.message });
  }),
  pathInput: pathInput(ZPreviewMoveFields, { policy: 'name', stage: 'group' }),
  responses: {
    200: '{ stage, policy, from_revision_id, to_revision_id, outcome: unchanged|move|request|blocked, action (the confirm button\'s words: "Move now", "Request 2 approvals", "Override the freeze"…), summary, blocked_by[], needs[] (override reasons the confirm needs), protected, approvals_required, reasons[{rule, approvals, message, details}], freeze {reason, ends_at, may_override}|null, bad_revision {reason, marked_by, marked_at}|null, gate {met, unmet[], converged, required, nodes, failed, success_pct, failure_pct, soaked_minutes, may_override, opens_at}|null, verdicts {here[], elsewhere[], may_override} (issue 43: where the revision failed — here: refused unless a manager gives verdict_override_reason; elsewhere: told), missing_artifacts[], downgrades[{name, from, to}], removed_cookbooks[], attribute_changes[{kind, precedence, path}] }',
    400: 'A field is invalid (named), or a rollback target the stage never held',
    403: 'The caller may not view the stage (or, for promote-cookbook, promote into it)',
    404: 'No such stage, policy or source revision',
    409: 'promote-cookbook: the stage changed since the caller looked (expected_revision_id)',
    422: 'promote-cookbook: a dependency constraint would not hold',
  },
});
