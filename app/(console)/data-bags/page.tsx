import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/authn/session';
import { dataBagsPage } from '@/lib/services/search';
import { userMayCreateBags } from '@/lib/services/data-bags';
import { CreateDataBagForm } from '@/components/data-bags';
import { EmptyState, PageHeader } from '@/components/page-header';
import { DEMO_BAGS, DEMO_DATA_BAG_SECRET } from '@/lib/seed/demo-data-bags-cookbook';
import { DataTable } from '@/components/data-table';

export const metadata: Metadata = { title: 'Data bags' };
export const dynamic = 'force-dynamic';

/** Chef data bags the user may read: items, who may change them, and which stages' clients may read them. */
export default async function DataBagsPage() {
  const access = await requireAccess();
  const bags = await dataBagsPage(access);
  return (
    <>
      <PageHeader
        title="Data bags"
        description="What recipes read with data_bag_item, Chef::EncryptedDataBagItem and chef_vault_item. Encrypted and vault items are stored as sent: the console never holds their secrets."
      />
      {bags.some((b) => b.name === DEMO_BAGS.secrets) && (
        <p className="card mb-4 p-3 text-sm text-slate-700" data-testid="demo-secret">
          Demo organisation only: the items of <span className="font-mono">{DEMO_BAGS.secrets}</span> were encrypted by the demo seed with the public demo secret{' '}
          <code className="mono select-all rounded bg-slate-100 px-1">{DEMO_DATA_BAG_SECRET}</code>. Save it as a node&apos;s <code className="mono">encrypted_data_bag_secret</code> file to converge the demo&apos;s monitoring policy.
          Real secrets never reach the console.
        </p>
      )}
      {userMayCreateBags(access) && <CreateDataBagForm />}
      {bags.length === 0 ? (
        <EmptyState title="No data bags">Create one here, or with knife data bag create.</EmptyState>
      ) : (
        <DataTable frame="card mt-4 overflow-x-auto" columns={['Bag', 'Items', 'Read by clients of', 'Team rights', 'Your right']} rows={bags}>
          {(b) => (
            <tr key={b.name}>
              <td>
                <Link href={`/data-bags/${encodeURIComponent(b.name)}`} className="font-mono text-indigo-800 underline">
                  {b.name}
                </Link>
              </td>
              <td>{b.itemCount}</td>
              <td>{b.stages.length ? <span className="font-medium text-amber-800">{b.stages.join(', ')} only</span> : 'every stage'}</td>
              <td className="text-sm">{b.grants.map((g) => `${g.team}: ${g.level}`).join(', ') || '—'}</td>
              <td>{b.myLevel}</td>
            </tr>
          )}
        </DataTable>
      )}
    </>
  );
}
