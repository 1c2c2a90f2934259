import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/authn/session';
import { artifactDiff, type FileStatus } from '@/lib/services/cookbooks';
import { shortId } from '@/lib/format';
import { EmptyState, PageHeader } from '@/components/page-header';
import TextDiff from '@/components/text-diff';

type Props = { params: Promise<{ name: string }>; searchParams: Promise<{ from?: string; to?: string; file?: string }> };

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Cookbook file changes' };

const STATUS_STYLE: Record<FileStatus, string> = {
  changed: 'bg-amber-100 text-amber-900',
  added: 'bg-emerald-100 text-emerald-900',
  removed: 'bg-red-100 text-red-900',
  same: 'bg-slate-100 text-slate-700',
};

/** What changed inside a cookbook between two identifiers: files added, removed and changed, and the text diff of each. */
export default async function ArtifactDiffPage({ params, searchParams }: Props) {
  await requireAccess();
  const name = decodeURIComponent((await params).name);
  const sp = await searchParams;
  if (!sp.from || !sp.to) {
    return (
      <>
        <PageHeader title={`${name}: file changes`} />
        <EmptyState title="Two identifiers are needed">Open this page from the compare view, where a cookbook&apos;s identifier changed.</EmptyState>
      </>
    );
  }
  const d = await artifactDiff(name, sp.from, sp.to, sp.file ?? null);
  const base = `/artifacts/${encodeURIComponent(name)}/diff?from=${encodeURIComponent(sp.from)}&to=${encodeURIComponent(sp.to)}`;
  const side = (s: typeof d.from) => (s.present ? `${s.version} (${shortId(s.identifier, 8)})` : `${shortId(s.identifier, 8)} (not on the server)`);
  const changed = d.files.filter((f) => f.status !== 'same').length;
  return (
    <>
      <PageHeader title={`${name}: ${side(d.from)} → ${side(d.to)}`} description={d.from.present && d.to.present ? `${changed} of ${d.files.length} files differ.` : 'One side is not on the server, so only the other side’s files are listed.'} />
      <div className="grid gap-4 lg:grid-cols-[20rem_1fr]">
        <nav className="card p-3" aria-label="Files">
          <ul className="space-y-0.5 text-xs" data-testid="artifact-diff-files">
            {d.files.map((f) => (
              <li key={f.path} className="flex items-center gap-2">
                <span className={`badge ${STATUS_STYLE[f.status]}`}>{f.status}</span>
                {f.status === 'same' ? (
                  <span className="mono truncate text-slate-700" title={f.path}>{f.path}</span>
                ) : (
                  <Link href={`${base}&file=${encodeURIComponent(f.path)}`} aria-current={d.selected?.path === f.path ? 'page' : undefined} className={`mono truncate ${d.selected?.path === f.path ? 'font-semibold text-indigo-900' : 'text-indigo-800 underline'}`} title={f.path}>
                    {f.path}
                  </Link>
                )}
              </li>
            ))}
          </ul>
        </nav>
        <section className="card min-w-0 p-3" aria-label="File diff">
          {!d.selected ? (
            <p className="text-slate-600">No file differs.</p>
          ) : d.selected.fromText === null && d.selected.toText === null ? (
            <p className="text-slate-600">{d.selected.path} is binary or too large to show.</p>
          ) : (
            <>
              <h2 className="mono mb-2 text-sm font-semibold">{d.selected.path}</h2>
              <TextDiff from={d.selected.fromText ?? ''} to={d.selected.toText ?? ''} split leftTitle={side(d.from)} rightTitle={side(d.to)} />
            </>
          )}
        </section>
      </div>
    </>
  );
}
