import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireAccess } from '@/lib/authn/session';
import { revisionDetail, revisionJourney } from '@/lib/services/policies';
import { lockPins, missingArtifacts } from '@/lib/db/queries/missing-artifacts';
import { badRevisionState } from '@/lib/services/guards';
import { BadRevisionBanner, BadRevisionPanel } from '@/components/bad-revision-panel';
import type { PolicyLock } from '@/lib/domain';
import { AttributeTree } from '@/components/attribute-tree';
import { OriginLabel } from '@/components/origin-label';
import { PageHeader } from '@/components/page-header';
import { RunRevision } from '@/components/run-revision';
import { dateTime, shortId } from '@/lib/format';
import { RevisionJourneyView } from '@/components/revision-journey';
import { DataTable } from '@/components/data-table';

type Props = { params: Promise<{ name: string; rev: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: `${decodeURIComponent(p.name)} @ ${shortId(decodeURIComponent(p.rev))}` };
}
export const dynamic = 'force-dynamic';

function sourceOf(cb: Record<string, unknown>): string {
  const so = cb.source_options as Record<string, unknown> | undefined;
  if (so?.path) return `path: ${String(so.path)}`;
  if (so?.git) return `git: ${String(so.git)}`;
  if (so?.artifactserver) return 'supermarket';
  if (typeof cb.source === 'string') return cb.source;
  return '—';
}

export default async function RevisionPage({ params }: Props) {
  const access = await requireAccess();
  const p = await params;
  const name = decodeURIComponent(p.name);
  const rev = await revisionDetail(access, name, decodeURIComponent(p.rev));
  if (!rev) notFound();
  const lock = JSON.parse(rev.document) as PolicyLock;
  const enc = encodeURIComponent(name);
  const cookbooks = Object.entries(lock.cookbook_locks ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  const absent = new Set(await missingArtifacts(lockPins(lock)));
  const missing = absent.size;
  const named = Object.entries(lock.named_run_lists ?? {});
  const [bad, journey] = await Promise.all([badRevisionState(access, name, rev.revisionId), revisionJourney(access, name, rev.revisionId)]);
  return (
    <>
      <PageHeader
        title={
          <>
            <Link href={`/policies/${enc}`} className="text-indigo-700 underline underline-offset-4">
              {name}
            </Link>{' '}
            / <span className="mono text-base">{shortId(rev.revisionId, 16)}</span>
          </>
        }
        description={
          <span className="flex flex-wrap items-center gap-2">
            {rev.verified ? (
              <span className="badge bg-emerald-50 text-emerald-700">✓ verified: revision_id equals chef-cli&apos;s computed id</span>
            ) : (
              <span className="badge bg-amber-50 text-amber-700">unverified: chef-cli would compute {shortId(rev.computedRevisionId, 16)}</span>
            )}
            <OriginLabel origin={rev.origin} detail={rev.originDetail} />
            <span>
              {dateTime(rev.createdAt)} by {rev.createdBy ?? 'unknown'}
            </span>
            {rev.stages.length > 0 ? <span>· active in {rev.stages.join(', ')}</span> : <span>· active in no stage</span>}
          </span>
        }
        actions={
          <>
          <BadRevisionPanel policy={name} revisionId={rev.revisionId} mark={bad.mark} canMark={bad.canMark} />
          <RunRevision policy={name} revisionId={rev.revisionId} />
          <a className="btn" href={`/api/v1/policies/${enc}/revisions/${encodeURIComponent(rev.revisionId)}?raw=true`} download={`${name}-${shortId(rev.revisionId)}.lock.json`}>
            Download
          </a>
          </>
        }
      />
      {bad.mark && <BadRevisionBanner mark={bad.mark} />}
      <RevisionJourneyView journey={journey} />
      <div className="grid gap-4 lg:grid-cols-2 [&>*]:min-w-0">
        <section className="card p-4" aria-labelledby="run-list">
          <h2 id="run-list" className="mb-2 font-semibold">
            Run list
          </h2>
          {lock.run_list.length === 0 ? (
            <p className="text-slate-600">Empty run list.</p>
          ) : (
            <ol className="mono list-decimal space-y-0.5 pl-5">
              {lock.run_list.map((item, i) => (
                <li key={i}>{item}</li>
              ))}
            </ol>
          )}
          {named.length > 0 && (
            <>
              <h3 className="mb-1 mt-4 text-xs font-semibold uppercase text-slate-600">Named run lists</h3>
              {named.map(([k, items]) => (
                <div key={k} className="mb-2">
                  <div className="font-medium">{k}</div>
                  <ol className="mono list-decimal pl-5">
                    {items.map((item, i) => (
                      <li key={i}>{item}</li>
                    ))}
                  </ol>
                </div>
              ))}
            </>
          )}
        </section>
        <section className="card p-4" aria-labelledby="included">
          <h2 id="included" className="mb-2 font-semibold">
            Included policies
          </h2>
          {(lock.included_policy_locks ?? []).length === 0 ? (
            <p className="text-slate-600">This lock includes no other policy.</p>
          ) : (
            <ul className="space-y-1" data-testid="included-policies">
              {lock.included_policy_locks!.map((inc, i) => (
                <li key={i} className="min-w-0 break-all">
                  <Link className="font-medium text-indigo-700 underline" href={`/policies/${encodeURIComponent(inc.name)}/revisions/${encodeURIComponent(inc.revision_id)}`}>
                    {inc.name} <span className="mono">{shortId(inc.revision_id, 12)}</span>
                  </Link>{' '}
                  <span className="text-xs text-slate-600">{JSON.stringify(inc.source_options)}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <section className="card mt-4 overflow-x-auto" aria-labelledby="cookbooks">
        <h2 id="cookbooks" className="px-4 pt-4 font-semibold">
          Cookbooks ({cookbooks.length})
        </h2>
        <p className="px-4 text-sm text-slate-600" data-testid="artifact-summary">
          {missing === 0 ? 'Every cookbook this revision pins is on the server.' : `${missing} of ${cookbooks.length} cookbooks are not on the server: nodes running this revision would fail to fetch them.`}
        </p>
        <DataTable frame={null} className="mt-2" columns={['Cookbook', 'Version', 'Identifier', 'Source', 'Artifact']} rows={cookbooks}>
          {([cb, entry]) => (
            <tr key={cb}>
              <td className="font-medium">{cb}</td>
              <td className="mono">{entry.version}</td>
              <td className="mono text-slate-600" title={entry.identifier}>
                {shortId(entry.identifier, 12)}
              </td>
              <td className="break-all text-slate-600">{sourceOf(entry)}</td>
              <td>
                {!absent.has(`${cb} ${entry.identifier}`) ? (
                  <Link href={`/artifacts/${encodeURIComponent(cb)}/${encodeURIComponent(entry.identifier)}`} className="text-indigo-800 underline">
                    on the server: files
                  </Link>
                ) : (
                  <span className="badge bg-amber-100 text-amber-900">missing</span>
                )}
              </td>
            </tr>
          )}
        </DataTable>
      </section>
      <div className="mt-4 grid gap-4 lg:grid-cols-2 [&>*]:min-w-0">
        <section className="card p-4" aria-labelledby="default-attrs">
          <h2 id="default-attrs" className="mb-2 font-semibold">
            Default attributes
          </h2>
          <AttributeTree value={lock.default_attributes} label="default attributes" />
        </section>
        <section className="card p-4" aria-labelledby="override-attrs">
          <h2 id="override-attrs" className="mb-2 font-semibold">
            Override attributes
          </h2>
          <AttributeTree value={lock.override_attributes} label="override attributes" />
        </section>
      </div>
      <details className="card mt-4 p-4">
        <summary className="cursor-pointer font-semibold">Raw JSON (as stored)</summary>
        <pre tabIndex={0} aria-label="Raw JSON" className="mono mt-2 max-h-[32rem] overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-3">{rev.document}</pre>
      </details>
    </>
  );
}
