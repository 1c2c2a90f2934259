import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { can } from '@/lib/auth/permissions';
import { requireAccess } from '@/lib/authn/session';
import { isAppError } from '@/lib/errors';
import { getRingRollout } from '@/lib/services/rings';
import { PageHeader } from '@/components/page-header';
import { RingRolloutView } from '@/components/rings/ring-rollout-view';

export const metadata: Metadata = { title: 'Ringed rollout' };
export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }> };

/** Issue 30: one ringed rollout, its steps and each step's nodes. */
export default async function RingPage({ params }: Props) {
  const access = await requireAccess();
  const { id } = await params;
  const ring = await getRingRollout(access, decodeURIComponent(id)).catch((e) => {
    if (isAppError(e) && e.code === 'not_found') return null;
    throw e;
  });
  if (!ring) notFound();
  return (
    <>
      <PageHeader
        title={
          <>
            Ringed rollout: {ring.policy} in {ring.stage}
          </>
        }
        description={
          <>
            <Link className="text-indigo-700 underline" href="/rings">
              All ringed rollouts
            </Link>{' '}
            · nodes in the ring are served the new revision by the Chef policy read; the others keep the stage&apos;s. Steps: {ring.steps.join('% → ')}%.
          </>
        }
      />
      <RingRolloutView ring={ring} canAct={can(access, 'stage.promote', { stage: ring.stage })} canManage={can(access, 'stage.manage', { stage: ring.stage })} />
    </>
  );
}
