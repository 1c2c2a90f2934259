import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { loadBoard } from '@/lib/db/queries/board';
import { PageHeader } from '@/components/page-header';
import { StageBoard } from '@/components/stage-board';
import { RolloutHealthProvider } from '@/components/rollout-health';
import { rolloutHealth } from '@/lib/services/rollout';

export const metadata: Metadata = { title: 'Stages' };
export const dynamic = 'force-dynamic';

export default async function StagesPage() {
  const access = await requireAccess();
  const [board, health] = await Promise.all([loadBoard(access), rolloutHealth(access)]);
  return (
    <>
      <PageHeader title="Stages" description="What runs where: each policy's active revision in every stage, left to right in promotion order." />
      <RolloutHealthProvider initial={health}>
        <StageBoard initial={board} />
      </RolloutHealthProvider>
    </>
  );
}
