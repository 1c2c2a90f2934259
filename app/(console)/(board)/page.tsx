import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { loadBoard } from '@/lib/db/queries/board';
import { PageHeader } from '@/components/page-header';
import { StageBoard } from '@/components/stage-board';

export const metadata: Metadata = { title: 'Stages' };
export const dynamic = 'force-dynamic';

export default async function StagesPage() {
  const access = await requireAccess();
  const board = await loadBoard(access);
  return (
    <>
      <PageHeader title="Stages" description="What runs where: each policy's active revision in every stage, left to right in promotion order." />
      <StageBoard initial={board} />
    </>
  );
}
