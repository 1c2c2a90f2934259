import { notFound } from 'next/navigation';
import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { pointerHistory, stageEvents } from '@/lib/services/stages';
import { badRevisionsOf } from '@/lib/services/guards';
import { activeRevisionId, policyNames, stageNames, viewableStageNames } from '@/lib/db/queries/policies';
import { HistoryTimeline } from '@/components/history-timeline';
import { EmptyState, PageHeader } from '@/components/page-header';
import { RolloutHistoryPanel } from '@/components/rollout-attribution';
import { changeAttributions, rolloutOutcomes, getStageRolloutRule, stageTimeline } from '@/lib/services/runs';
import { AutomationPanel } from '@/components/automation-panel';

export const metadata: Metadata = { title: 'History' };
const AUTOMATION_ENTRY_KINDS = new Set(['auto-promoted', 'requested', 'held', 'resumed', 'soaked', 'checked']);
export const dynamic = 'force-dynamic';

export default async function HistoryPage({ searchParams }: { searchParams: Promise<{ policy?: string; stage?: string }> }) {
  const access = await requireAccess();
  const { policy, stage } = await searchParams;
  if (!policy || !stage) {
    const [policies, stages] = await Promise.all([policyNames(), viewableStageNames(access)]);
    // Issue 47: the board's automation badge links here with the stage alone: its automation (Resume) and timeline.
    const stageAutomation = stage && stages.includes(stage) ? await Promise.all([getStageRolloutRule(access, stage), stageTimeline(access, { stage, limit: 50 })]) : null;
    return (
      <>
        <PageHeader title="History" description="Every change of the revision a stage runs for a policy." />
        {stage && stageAutomation && (stageAutomation[0].automation.state !== 'off' || stageAutomation[1].entries.some((e) => AUTOMATION_ENTRY_KINDS.has(e.kind))) && (
          <AutomationPanel stage={stage} automation={stageAutomation[0].automation} entries={stageAutomation[1].entries} canManage={can(access, 'stage.manage', { stage })} />
        )}
        <form method="get" className="card flex flex-wrap items-end gap-3 p-4" aria-label="Choose a history">
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
            Policy
            <select name="policy" className="input w-56" defaultValue={policy ?? ''} required>
              <option value="" disabled>
                Choose a policy…
              </option>
              {policies.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
            Stage
            <select name="stage" className="input w-44" defaultValue={stage ?? ''} required>
              <option value="" disabled>
                Choose a stage…
              </option>
              {stages.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <button type="submit" className="btn btn-primary">
            Show history
          </button>
        </form>
      </>
    );
  }
  const [knownPolicies, knownStages] = await Promise.all([policyNames(), stageNames()]);
  // Unknown names are a 404 (and say so), before any permission question.
  if (!knownPolicies.includes(policy) || !knownStages.includes(stage)) notFound();
  if (!can(access, 'stage.view', { stage })) {
    return (
      <>
        <PageHeader title="History" />
        <EmptyState title="Not visible">You may not view stage {stage}.</EmptyState>
      </>
    );
  }
  const [entries, current, bad, outcomes, attributions, events, rule, timeline] = await Promise.all([
    pointerHistory(stage, policy),
    activeRevisionId(stage, policy),
    badRevisionsOf(policy),
    rolloutOutcomes(access, stage, policy),
    changeAttributions(access, stage, policy),
    stageEvents(stage, policy),
    getStageRolloutRule(access, stage),
    stageTimeline(access, { stage, policy, limit: 50 }),
  ]);
  return (
    <>
      <PageHeader
        title={
          <>
            History of{' '}
            <Link className="text-indigo-700 underline underline-offset-4" href={`/policies/${encodeURIComponent(policy)}`}>
              {policy}
            </Link>{' '}
            in {stage}
          </>
        }
        description="Every change of the revision this stage runs — who, when, from, to and why — with its ringed rollouts, promotion requests and the failures recorded here."
      />
      {/* Issue 47: shown where automatic promotion is on or held, or has acted here (the timeline is also GET /api/v1/policy_groups/:g/timeline). */}
      {(rule.automation.state !== 'off' || rule.automation.held || timeline.entries.some((e) => AUTOMATION_ENTRY_KINDS.has(e.kind))) && (
        <AutomationPanel stage={stage} automation={rule.automation} entries={timeline.entries} canManage={can(access, 'stage.manage', { stage })} />
      )}
      <RolloutHistoryPanel stage={stage} outcomes={outcomes} attributions={attributions} />
      <HistoryTimeline policy={policy} stage={stage} entries={entries} current={current} bad={bad} events={events} canRollback={can(access, 'stage.promote', { stage })} canManage={can(access, 'stage.manage', { stage })} />
    </>
  );
}
