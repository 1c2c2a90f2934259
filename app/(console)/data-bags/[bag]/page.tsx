import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireAccess } from '@/lib/authn/session';
import { isAppError } from '@/lib/errors';
import { dataBagDetail } from '@/lib/services/search';
import { DataBagActions, DataBagSettings, ItemKindBadge, VaultDetails } from '@/components/data-bags';
import { EmptyState, PageHeader } from '@/components/page-header';
import { dateTime } from '@/lib/format';

export const dynamic = 'force-dynamic';

export async function generateMetadata({ params }: { params: Promise<{ bag: string }> }): Promise<Metadata> {
  return { title: `Data bag ${decodeURIComponent((await params).bag)}` };
}

/** One bag: its items (plain, encrypted with format and fields, vault items with who can decrypt them), and its settings. */
export default async function DataBagPage({ params }: { params: Promise<{ bag: string }> }) {
  const access = await requireAccess();
  const name = decodeURIComponent((await params).bag);
  let bag;
  try {
    bag = await dataBagDetail(access, name);
  } catch (e) {
    if (isAppError(e) && e.status === 404) notFound();
    if (isAppError(e) && e.status === 403) return <EmptyState title="Restricted">{e.message}</EmptyState>;
    throw e;
  }
  const shown = bag.items.filter((i) => !(i.kind === 'vault-keys' && bag.items.some((v) => v.vault && `${v.id}_keys` === i.id)));
  return (
    <>
      <PageHeader
        title={<span className="font-mono">{bag.name}</span>}
        description={bag.stages.length ? `Read only by the clients of nodes in ${bag.stages.join(', ')}.` : 'Read by every client (Chef’s default).'}
        actions={
          <Link href="/data-bags" className="btn">
            All data bags
          </Link>
        }
      />
      <DataBagActions bag={bag} />
      {shown.length === 0 ? (
        <EmptyState title="No items">Add one here, or with knife data bag from file.</EmptyState>
      ) : (
        <ul className="mt-4 space-y-2">
          {shown.map((i) => (
            <li key={i.id} className="card p-3">
              <div className="flex flex-wrap items-center gap-2">
                <Link href={`/data-bags/${encodeURIComponent(bag.name)}/${encodeURIComponent(i.id)}`} className="font-mono text-indigo-800 underline">
                  {i.id}
                </Link>
                <ItemKindBadge item={i} />
                {i.kind === 'encrypted' && <span className="text-xs text-slate-600">encrypted fields: {i.encryptedKeys.join(', ')}</span>}
                <span className="ml-auto text-xs text-slate-500">updated {dateTime(i.updatedAt)}</span>
              </div>
              {i.vault && (
                <div className="mt-2">
                  <VaultDetails vault={i.vault} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {bag.canManage && (
        <div className="mt-6">
          <DataBagSettings bag={bag} />
        </div>
      )}
    </>
  );
}
