import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { composeOptions } from '@/lib/services/compose';
import { ComposeEditor } from '@/components/compose-editor';
import { EmptyState, PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Compose' };
export const dynamic = 'force-dynamic';

export default async function ComposePage({ searchParams }: { searchParams: Promise<{ policy?: string }> }) {
  const access = await requireAccess();
  const options = await composeOptions(access);
  const { policy } = await searchParams;
  return (
    <>
      <PageHeader
        title="Compose"
        description="Build a policy from other teams' locks (include_policy): includes first, then the parent; every conflict shown with both sources before anything is saved."
      />
      {options.policies.length === 0 ? <EmptyState title="No policies yet">Upload a lock on the Policies page first.</EmptyState> : <ComposeEditor options={options} initialPolicy={policy} />}
    </>
  );
}
