import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/authn/session';
import { ringStartChoices } from '@/lib/services/rings';
import { PageHeader } from '@/components/page-header';
import { StartRingForm } from '@/components/rings/start-ring-form';

export const metadata: Metadata = { title: 'Start a ringed rollout' };
export const dynamic = 'force-dynamic';

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };
const one = (v: string | string[] | undefined) => (typeof v === 'string' && v ? v : undefined);

/** Issue 30: start a ringed rollout (deep link: ?policy=…&stage=…&revision=…). */
export default async function StartRingPage({ searchParams }: Props) {
  const access = await requireAccess();
  const [choices, sp] = await Promise.all([ringStartChoices(access), searchParams]);
  return (
    <>
      <PageHeader
        title="Start a ringed rollout"
        description={
          <>
            A stable share of the stage&apos;s nodes (plus any you name) gets the new revision first; each step widens the ring, and the last makes it the stage&apos;s revision. Nodes outside the ring keep what
            the stage runs. <Link href="/rings" className="text-indigo-700 underline">All ringed rollouts</Link>
          </>
        }
      />
      <StartRingForm choices={choices} initial={{ policy: one(sp.policy), stage: one(sp.stage), revision: one(sp.revision) }} />
    </>
  );
}
