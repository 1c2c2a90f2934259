import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireAccess } from '@/lib/authn/session';
import { policyDetail } from '@/lib/services/policies';
import { viewableStageNames } from '@/lib/db/queries/policies';
import { PageHeader } from '@/components/page-header';
import { OriginLabel } from '@/components/origin-label';
import { UploadLock } from '@/components/upload-lock';
import { dateTime, shortId } from '@/lib/format';
import { can } from '@/lib/auth/permissions';
import { listDependents } from '@/lib/services/dependents';
import { DependentsPanel, type StageDependents } from '@/components/dependents-panel';
import { ACTIONS, DataTable } from '@/components/data-table';

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: decodeURIComponent((await params).name) };
}
export const dynamic = 'force-dynamic';

export default async function PolicyPage({ params }: Props) {
  const access = await requireAccess();
  const name = decodeURIComponent((await params).name);
  const policy = await policyDetail(access, name);
  if (!policy) notFound();
  const enc = encodeURIComponent(policy.name);
  const stages = await viewableStageNames(access);
  // Issue 48: per stage, the policies whose revision there includes this one (at any depth).
  const dependents: StageDependents[] = [];
  for (const stage of stages) {
    const data = await listDependents(access, { stage, policy: policy.name });
    if (!data.dependents.length) continue;
    dependents.push({ data, canPromote: can(access, 'stage.promote', { stage }), canPromoteNext: !!data.next_stage && can(access, 'stage.promote', { stage: data.next_stage }) });
  }
  return (
    <>
      <PageHeader
        title={
          <>
            <Link href="/policies" className="text-slate-600 hover:underline">
              Policies
            </Link>{' '}
            / {policy.name}
          </>
        }
        description={`Owned by ${policy.team ?? 'no team (admins only)'} · ${policy.revisions.length} revision${policy.revisions.length === 1 ? '' : 's'}`}
        actions={
          <>
            <Link href={`/compare?policy=${enc}`} className="btn">
              Compare…
            </Link>
            {policy.canUpload && <UploadLock policyName={policy.name} />}
          </>
        }
      />
      {stages.length > 0 && (
        <p className="mb-3 text-sm text-slate-600">
          History in:{' '}
          {stages.map((st, i) => (
            <span key={st}>
              {i > 0 && ' · '}
              <Link className="text-indigo-700 hover:underline" href={`/history?policy=${enc}&stage=${encodeURIComponent(st)}`}>
                {st}
              </Link>
            </span>
          ))}
        </p>
      )}
      <DataTable testId="revisions-table" columns={['Revision', 'Created', 'By', 'Origin', 'Cookbooks', 'Stages using it', ACTIONS]} rows={policy.revisions}>
        {(r, i) => {
          const older = policy.revisions[i + 1];
          return (
            <tr key={r.revisionId} data-revision={r.revisionId}>
              <td>
                <Link href={`/policies/${enc}/revisions/${encodeURIComponent(r.revisionId)}`} className="mono text-indigo-700 hover:underline" title={r.revisionId}>
                  {shortId(r.revisionId, 12)}
                </Link>{' '}
                {r.verified ? (
                  <span className="badge bg-emerald-50 text-emerald-700" title="revision_id equals chef-cli's computed id">
                    ✓ verified
                  </span>
                ) : (
                  <span className="badge bg-amber-50 text-amber-700" title={`chef-cli would compute ${r.computedRevisionId}`}>
                    unverified
                  </span>
                )}
              </td>
              <td className="whitespace-nowrap text-slate-600">{dateTime(r.createdAt)}</td>
              <td className="text-slate-600">{r.createdBy ?? '—'}</td>
              <td>
                <OriginLabel origin={r.origin} detail={r.originDetail} />
              </td>
              <td>{r.cookbookCount}</td>
              <td>
                <div className="flex flex-wrap gap-1">
                  {r.stages.map((s) => (
                    <span key={s} className="badge bg-indigo-50 text-indigo-700">
                      {s}
                    </span>
                  ))}
                </div>
              </td>
              <td className="whitespace-nowrap text-right">
                {older && (
                  <Link href={`/compare?policy=${enc}&from=rev:${encodeURIComponent(r.revisionId)}&to=rev:${encodeURIComponent(older.revisionId)}`} className="text-xs text-indigo-700 hover:underline">
                    diff with previous
                  </Link>
                )}
              </td>
            </tr>
          );
        }}
      </DataTable>
      {dependents.length > 0 && <DependentsPanel policy={policy.name} stages={dependents} />}
    </>
  );
}
