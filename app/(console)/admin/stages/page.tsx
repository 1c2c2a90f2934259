import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { stagesForAdmin, enrollmentForAdmin } from '@/lib/services/stages';
import { approverChoices, stageGuardStates } from '@/lib/db/queries/stage-guard-state';
import { StageGuardsAdmin } from '@/components/stage-guards-admin';
import { AdminStages } from '@/components/admin-stages';
import { AdminRolloutRules } from '@/components/admin-rollout-rules';
import { rolloutRulesForAdmin } from '@/lib/services/runs';
import { PageHeader } from '@/components/page-header';
import { StageEnrollmentAdmin } from '@/components/stage-enrollment-admin';

export const metadata: Metadata = { title: 'Stages' };
export const dynamic = 'force-dynamic';

export default async function StagesAdminPage() {
  const access = await requireAccess();
  const [data, guardStages, choices, rolloutRules, enrollment] = await Promise.all([stagesForAdmin(access), stageGuardStates(access), approverChoices(), rolloutRulesForAdmin(access), enrollmentForAdmin(access)]);
  return (
    <>
      <PageHeader title="Stages" description="The promotion order, left to right on the board. Admins create stages; those who manage a stage edit or delete it." />
      <AdminStages {...data} />
      <StageEnrollmentAdmin {...enrollment} />
      <StageGuardsAdmin stages={guardStages} {...choices} />
      <AdminRolloutRules rows={rolloutRules} />
    </>
  );
}
