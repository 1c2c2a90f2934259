import type { Metadata } from 'next';
import { Suspense } from 'react';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { compare, comparePickerOptions } from '@/lib/db/queries/compare';
import { badRevisionsOf } from '@/lib/services/guards';
import { BadRevisionNotes } from '@/components/board-guards';
import { isAppError } from '@/lib/errors';
import { ComparePicker } from '@/components/compare-picker';
import { CompareView } from '@/components/compare-view';
import { EmptyState, PageHeader } from '@/components/page-header';
import { CompareRolloutNotes } from '@/components/rollout-attribution';
import { changeAttributions } from '@/lib/services/runs';

export const metadata: Metadata = { title: 'Compare' };
export const dynamic = 'force-dynamic';

type Props = { searchParams: Promise<Record<string, string | undefined>> };

export default async function ComparePage({ searchParams }: Props) {
  const access = await requireAccess();
  const { policy, from, to } = await searchParams;
  const options = await comparePickerOptions(access, policy);
  let body: React.ReactNode = null;
  if (policy && from && to) {
    try {
      const [c, bad] = await Promise.all([compare(access, policy, from, to), badRevisionsOf(policy)]);
      // Issue 26: where the failures of each compared stage's last promotion fall.
      const rollout = await Promise.all(
        [c.from.stage, c.to.stage].filter((st): st is string => !!st).map(async (st) => ({ stage: st, attribution: (await changeAttributions(access, st, policy, 1))[0] })),
      );
      body = (
        <Suspense>
          <BadRevisionNotes sides={[c.from, c.to]} bad={bad} />
          <CompareRolloutNotes items={rollout.filter((r) => !!r.attribution)} />
          <CompareView
            c={c}
            canPromote={!!c.from.stage && !!c.to.stage && can(access, 'stage.promote', { stage: c.to.stage })}
            canManage={!!c.to.stage && can(access, 'stage.manage', { stage: c.to.stage })}
          />
        </Suspense>
      );
    } catch (e) {
      if (!isAppError(e)) throw e;
      body = <EmptyState title="Nothing to compare">{e.message}</EmptyState>;
    }
  }
  return (
    <>
      <PageHeader title={policy ? `Compare ${policy}` : 'Compare'} description="What differs between two stages or two revisions of a policy: classified changes first, then the full text." />
      <div className="space-y-4">
        <ComparePicker options={options} policy={policy} from={from} to={to} />
        {body}
      </div>
    </>
  );
}
