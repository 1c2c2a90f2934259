'use client';

/**
 * Issue 30: start a ringed rollout from the console. The guard's dry run (the same judgement the
 * start goes through) says before the click whether the ring starts now or opens a request.
 */
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { startRingAction } from '@/lib/actions/rings/ring-actions';
import { ringSeed, ringSteps, validateRingSteps } from '@/lib/domain/rings';
import { dateTime, shortId } from '@/lib/format';
import type { RingRolloutDto, RingStartChoices } from '@/lib/types/rings';
import { Field, FormAlert } from '../form-field';
import { GuardAnswer, guardAllows, useMovePreview, type GuardOverrides } from '../guard-answer';

/** "5, 25, 100" → [5, 25, 100]; null when a part is not a number. */
function parseSteps(text: string): number[] | null {
  const parts = text.split(/[\s,→>]+/).filter(Boolean);
  if (!parts.length) return null;
  const steps = parts.map((p) => Number(p.replace(/%$/, '')));
  return steps.every((n) => Number.isFinite(n)) ? steps : null;
}

const names = (text: string) => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

export function StartRingForm({ choices, initial }: { choices: RingStartChoices; initial: { policy?: string; stage?: string; revision?: string } }) {
  const router = useRouter();
  const firstPolicy = choices.policies.find((p) => p.name === initial.policy) ?? choices.policies[0];
  const [policy, setPolicy] = useState(firstPolicy?.name ?? '');
  const [stage, setStage] = useState(choices.stages.some((s) => s.name === initial.stage) ? initial.stage! : (choices.stages[0]?.name ?? ''));
  const current = choices.policies.find((p) => p.name === policy);
  const stageRuns = current?.runs[stage] ?? null;
  const defaultRevision = (p = current, s = stage) => {
    const wanted = p?.revisions.find((r) => r.id === initial.revision);
    if (wanted) return wanted.id;
    return p?.revisions.find((r) => r.id !== p.runs[s])?.id ?? '';
  };
  const [revision, setRevision] = useState(defaultRevision());
  const [stepsText, setStepsText] = useState('10, 50, 100');
  const [nodesText, setNodesText] = useState('');
  const [soak, setSoak] = useState('');
  const [gate, setGate] = useState(true);
  // Issue 43: rolling back on a ring node's failure is its own choice, stated (it no longer hides behind the gate's checkbox).
  const [rollbackOnFailure, setRollbackOnFailure] = useState(true);
  const [reason, setReason] = useState('');
  const [overrides, setOverrides] = useState<GuardOverrides>({ freeze: '', gate: '', verdict: '' });
  const steps = parseSteps(stepsText);
  // Issue 43: the blast radius of each step, from the stage's nodes (the same hash the Chef read serves by).
  const stageNodes = useMemo(() => choices.nodes[stage]?.[policy] ?? [], [choices, stage, policy]);
  const stepsKey = steps ? steps.join(',') : '';
  const blast = useMemo(() => {
    const st = stepsKey ? stepsKey.split(',').map(Number) : null;
    if (!st || validateRingSteps(st).length) return null;
    const per = ringSteps({ seed: ringSeed(stage, policy), steps: st, named: names(nodesText) }, stageNodes);
    let total = 0;
    return st.map((percent, i) => ({ percent, nodes: (total += per[i].length) }));
  }, [stepsKey, stage, policy, nodesText, stageNodes]);
  const where = useMemo(() => Object.entries(current?.runs ?? {}).reduce<Record<string, string[]>>((acc, [s, r]) => ({ ...acc, [r]: [...(acc[r] ?? []), s] }), {}), [current]);

  const previewReq = policy && stage && revision && revision !== stageRuns ? ({ policy, stage, kind: 'promote', from: `rev:${revision}` } as const) : null;
  const preview = useMovePreview(previewReq);
  const p = preview.data;
  const start = useActionMutation(
    () =>
      runAction(startRingAction, {
        policy,
        stage,
        revision_id: revision,
        steps: steps ?? [],
        nodes: names(nodesText).length ? names(nodesText) : undefined,
        gate_on_convergence: gate,
        rollback_on_failure: rollbackOnFailure,
        soak_minutes: soak.trim() ? Number(soak) : null,
        reason: reason.trim() || undefined,
        expected_revision_id: stageRuns,
        override_reason: overrides.freeze.trim() || undefined,
        gate_override_reason: overrides.gate.trim() || undefined,
        verdict_override_reason: (p?.needs.includes('verdict_override_reason') && overrides.verdict?.trim()) || undefined,
      }),
    {
      errors: 'inline',
      success: (r: RingRolloutDto) =>
        r.status === 'pending_approval'
          ? `Request opened: approving it ${r.plan.words}`
          : `Ring started: ${r.percent}% of ${r.stage} (${r.plan.first_nodes} of ${r.plan.stage_nodes} node${r.plan.stage_nodes === 1 ? '' : 's'}) gets ${shortId(r.to_revision_id)}; ${r.stage} still runs ${shortId(r.from_revision_id)} on the others`,
      then: (r: RingRolloutDto) => router.push(`/rings/${encodeURIComponent(r.id)}`),
      invalidate: [['rings', 'open']],
    },
  );

  if (!choices.stages.length) return <p className="text-slate-700">You may not change what runs in any stage, so you cannot start a ringed rollout. Ask a manager of the stage for the promote grant.</p>;
  if (!choices.policies.length) return <p className="text-slate-700">No policy has been uploaded yet: push one with chef push first.</p>;

  const label = !previewReq
    ? revision && revision === stageRuns
      ? `${stage} already runs this revision`
      : 'Choose a revision'
    : !p
      ? 'Checking'
      : p.outcome === 'request'
        ? `Request ${p.approvals_required} approval${p.approvals_required === 1 ? '' : 's'} to start the ring`
        : p.outcome === 'move'
          ? `Start the ring at ${steps?.[0] ?? '?'}%${blast ? ` (${blast[0].nodes} of ${stageNodes.length} node${stageNodes.length === 1 ? '' : 's'})` : ''}`
          : p.action;
  const ready = !!previewReq && !!steps && guardAllows(p, overrides) && !start.isPending;

  return (
    <form
      className="card max-w-3xl space-y-4 p-4"
      aria-label="Start a ringed rollout"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) start.mutate(undefined);
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Policy" name="policy" errors={start.formErrors}>
          {(c) => (
            <select
              {...c}
              className="input w-full"
              value={policy}
              onChange={(e) => {
                const next = choices.policies.find((x) => x.name === e.target.value);
                setPolicy(e.target.value);
                setRevision(defaultRevision(next, stage));
              }}
            >
              {choices.policies.map((x) => (
                <option key={x.name}>{x.name}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Stage" name="stage" errors={start.formErrors} hint={stageRuns ? `runs ${shortId(stageRuns)} now` : 'runs nothing of this policy yet: a ring needs a revision to start from'}>
          {(c) => (
            <select
              {...c}
              className="input w-full"
              value={stage}
              onChange={(e) => {
                setStage(e.target.value);
                if (revision === current?.runs[e.target.value]) setRevision(defaultRevision(current, e.target.value));
              }}
            >
              {choices.stages.map((s) => (
                <option key={s.name}>{s.name}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label="Revision the ring gets" name="revision_id" errors={start.formErrors}>
        {(c) => (
          <select {...c} className="input w-full mono" value={revision} onChange={(e) => setRevision(e.target.value)}>
            {!current?.revisions.length && <option value="">no revisions</option>}
            {current?.revisions.map((r) => (
              <option key={r.id} value={r.id}>
                {shortId(r.id)} · {r.origin} {dateTime(r.created_at)}
                {r.created_by ? ` by ${r.created_by}` : ''}
                {where[r.id] ? ` · runs in ${where[r.id].join(', ')}` : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Steps (percent of the stage's nodes)" name="steps" errors={start.formErrors} hint={steps ? `${steps.map((s) => `${s}%`).join(' → ')}; the last step makes it ${stage}'s revision` : 'Numbers separated by commas, rising to 100, e.g. 5, 25, 100'}>
          {(c) => <input {...c} className="input w-full" value={stepsText} onChange={(e) => setStepsText(e.target.value)} aria-invalid={steps ? c['aria-invalid'] : true} />}
        </Field>
        <Field label="Soak minutes before each automatic widening (optional)" name="soak_minutes" errors={start.formErrors} hint="Empty: widen by hand">
          {(c) => <input {...c} className="input w-full" inputMode="numeric" value={soak} onChange={(e) => setSoak(e.target.value)} />}
        </Field>
      </div>
      <Field label="Named nodes in the ring from the first step (optional)" name="nodes" errors={start.formErrors} hint="Node names separated by spaces, commas or lines">
        {(c) => <textarea {...c} className="input w-full mono" rows={2} value={nodesText} onChange={(e) => setNodesText(e.target.value)} />}
      </Field>
      <p className="text-sm text-slate-800" data-testid="ring-blast-radius" aria-live="polite">
        {!stageNodes.length
          ? `${stage} has no node running ${policy} yet: the ring starts empty and takes each node that appears by the same rule.`
          : blast
            ? `Blast radius: ${blast.map((b, i) => `${i === 0 ? '' : 'then '}${b.nodes} of ${stageNodes.length} node${stageNodes.length === 1 ? '' : 's'}${i === 0 ? ' first' : ''} (${b.percent}%)`).join(', ')}.`
            : 'Blast radius: give steps rising to 100 to see how many nodes each one reaches.'}
      </p>
      <fieldset className="space-y-1">
        <legend className="text-xs font-semibold uppercase text-slate-600">Safety</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={gate} onChange={(e) => setGate(e.target.checked)} data-testid="ring-gate" /> Widen only once every ring node has converged the new revision
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={rollbackOnFailure} onChange={(e) => setRollbackOnFailure(e.target.checked)} data-testid="ring-rollback-on-failure" /> Roll the ring back automatically as soon as a ring node fails on
          it (its nodes return to {stageRuns ? shortId(stageRuns) : 'the stage’s revision'}; the failure is recorded against {stage})
        </label>
      </fieldset>
      <Field label="Reason (optional, in the audit log and history)" name="reason" errors={start.formErrors}>
        {(c) => <input {...c} className="input w-full" value={reason} onChange={(e) => setReason(e.target.value)} />}
      </Field>
      {previewReq && <GuardAnswer preview={preview} overrides={overrides} onOverrides={setOverrides} />}
      <FormAlert errors={start.formErrors} fields={['policy', 'stage', 'revision_id', 'steps', 'soak_minutes', 'nodes', 'reason']} />
      <div className="flex justify-end">
        <button type="submit" className="btn btn-primary" disabled={!ready} data-testid="start-ring">
          {start.isPending ? 'Starting…' : label}
        </button>
      </div>
    </form>
  );
}
