import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireAccess } from '@/lib/authn/session';
import { isAppError } from '@/lib/errors';
import { dataBagItemDetail } from '@/lib/services/search';
import { DataBagItemActions, ItemKindBadge, VaultDetails } from '@/components/data-bags';
import { EmptyState, PageHeader } from '@/components/page-header';
import TextDiff from '@/components/text-diff';
import { dateTime } from '@/lib/format';

export const dynamic = 'force-dynamic';

export async function generateMetadata({ params }: { params: Promise<{ bag: string; item: string }> }): Promise<Metadata> {
  const p = await params;
  return { title: `${decodeURIComponent(p.bag)}/${decodeURIComponent(p.item)}` };
}

/** One item: the document (plain as formatted JSON, encrypted shown as such), edit/delete, and its history with diffs for plain items. */
export default async function DataBagItemPage({ params }: { params: Promise<{ bag: string; item: string }> }) {
  const access = await requireAccess();
  const p = await params;
  const bagName = decodeURIComponent(p.bag);
  const itemId = decodeURIComponent(p.item);
  let d;
  try {
    d = await dataBagItemDetail(access, bagName, itemId);
  } catch (e) {
    if (isAppError(e) && e.status === 404) notFound();
    if (isAppError(e) && e.status === 403) return <EmptyState title="Restricted">{e.message}</EmptyState>;
    throw e;
  }
  const { item } = d;
  return (
    <>
      <PageHeader
        title={<span className="font-mono">{`${d.bag}/${item.id}`}</span>}
        description={
          item.kind === 'encrypted'
            ? `Encrypted (Chef format ${item.version}): fields ${item.encryptedKeys.join(', ')} are ciphertext; recipes decrypt them with the shared secret${item.vault ? ' (a chef-vault item: each client decrypts the secret with its own key)' : ''}.`
            : item.kind === 'vault-keys'
              ? 'The keys of a chef-vault item: the shared secret, encrypted for each admin and client.'
              : 'Plain JSON, as recipes read it with data_bag_item.'
        }
        actions={
          <Link href={`/data-bags/${encodeURIComponent(d.bag)}`} className="btn">
            Bag {d.bag}
          </Link>
        }
      />
      <div className="mb-2 flex items-center gap-2">
        <ItemKindBadge item={item} />
      </div>
      {item.vault && (
        <div className="card mb-4 p-4">
          <VaultDetails vault={item.vault} />
        </div>
      )}
      <pre className="card mb-4 max-h-[32rem] overflow-auto p-4 font-mono text-xs" aria-label="Item document">
        {d.document}
      </pre>
      {d.myLevel === 'write' && <DataBagItemActions bag={d.bag} id={item.id} document={d.document} />}
      <h2 className="mb-2 mt-6 font-semibold">History</h2>
      {d.history.length === 0 ? (
        <p className="text-sm text-slate-600">No recorded changes.</p>
      ) : (
        <ol className="space-y-3">
          {d.history.map((h) => (
            <li key={h.id} className="card p-3">
              <p className="text-sm">
                <b>{h.action.replace('data-bag-item.', '')}</b> by {h.actor ?? 'system'}
                {h.via ? <span className="text-slate-600"> through {h.via}</span> : null} · {dateTime(h.at)}
              </p>
              {h.before !== null || h.after !== null ? (
                <div className="mt-2 overflow-x-auto text-xs">
                  <TextDiff from={h.before ?? ''} to={h.after ?? ''} split={false} leftTitle="before" rightTitle="after" />
                </div>
              ) : (
                <p className="text-xs text-slate-600">Encrypted item: only that it changed is recorded.</p>
              )}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
