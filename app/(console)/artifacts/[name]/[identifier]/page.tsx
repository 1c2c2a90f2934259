import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import hljs from 'highlight.js/lib/common';
import 'highlight.js/styles/github.css';
import { requireAccess } from '@/lib/authn/session';
import { artifactPage } from '@/lib/services/cookbooks';
import { dateTime, shortId } from '@/lib/format';
import { PageHeader } from '@/components/page-header';

type Props = { params: Promise<{ name: string; identifier: string }>; searchParams: Promise<{ file?: string; page?: string }> };

export const dynamic = 'force-dynamic';

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: `${decodeURIComponent(p.name)} ${shortId(decodeURIComponent(p.identifier))}` };
}

const LANGUAGES: Record<string, string> = { rb: 'ruby', erb: 'erb', json: 'json', md: 'markdown', yml: 'yaml', yaml: 'yaml', sh: 'bash', py: 'python', ini: 'ini', conf: 'ini', xml: 'xml', ps1: 'powershell' };

function highlighted(path: string, text: string): string {
  const ext = path.split('.').pop()?.toLowerCase() ?? '';
  const language = LANGUAGES[ext];
  // highlight.js escapes the text it is given: its output is safe markup.
  return language && hljs.getLanguage(language) ? hljs.highlight(text, { language }).value : hljs.highlight(text, { language: 'plaintext' }).value;
}

/** A cookbook artifact: its files as a tree, one file's text highlighted, and its metadata. */
export default async function ArtifactPage({ params, searchParams }: Props) {
  await requireAccess();
  const p = await params;
  const name = decodeURIComponent(p.name);
  const identifier = decodeURIComponent(p.identifier);
  const sp = await searchParams;
  const a = await artifactPage(name, identifier, sp.file ?? null, Number(sp.page ?? 1) || 1);
  if (!a) notFound();
  const base = `/artifacts/${encodeURIComponent(name)}/${encodeURIComponent(identifier)}`;
  const deps = Object.entries((a.metadata.dependencies as Record<string, string> | undefined) ?? {});
  return (
    <>
      <PageHeader
        title={
          <>
            {a.name} <span className="mono text-base">{a.version}</span>
          </>
        }
        description={
          <span>
            Identifier <span className="mono">{a.identifier}</span> · uploaded {dateTime(a.createdAt)}
            {a.createdBy ? ` by ${a.createdBy}` : ''} · {a.totalFiles} files
            {deps.length > 0 && <> · depends on {deps.map(([d, c]) => `${d} ${c}`).join(', ')}</>}
          </span>
        }
      />
      <div className="grid gap-4 lg:grid-cols-[18rem_1fr]">
        <nav className="card p-3" aria-label="Files">
          <ul className="mono space-y-0.5 text-xs" data-testid="artifact-files">
            {a.files.map((f) => (
              <li key={f.path}>
                <Link
                  href={`${base}?file=${encodeURIComponent(f.path)}`}
                  aria-current={a.selected?.path === f.path ? 'page' : undefined}
                  className={`block truncate rounded px-1 py-0.5 ${a.selected?.path === f.path ? 'bg-indigo-50 font-semibold text-indigo-900' : 'text-slate-800 hover:bg-slate-50'}`}
                  title={f.path}
                >
                  {f.path}
                  {f.size !== null && <span className="ml-1 text-slate-600">({f.size} B)</span>}
                </Link>
              </li>
            ))}
          </ul>
          {a.pages > 1 && (
            <p className="mt-2 flex items-center justify-between gap-2 text-xs text-slate-700" data-testid="artifact-files-pages">
              {a.page > 1 ? (
                <Link className="text-indigo-700 underline" href={`${base}?page=${a.page - 1}`}>
                  Previous
                </Link>
              ) : (
                <span />
              )}
              <span>
                Page {a.page} of {a.pages}
              </span>
              {a.page < a.pages ? (
                <Link className="text-indigo-700 underline" href={`${base}?page=${a.page + 1}`}>
                  Next
                </Link>
              ) : (
                <span />
              )}
            </p>
          )}
        </nav>
        <section className="card min-w-0 p-3" aria-label={a.selected ? `File ${a.selected.path}` : 'File'}>
          {!a.selected ? (
            <p className="text-slate-600">This artifact has no files.</p>
          ) : a.selected.text === null ? (
            <p className="text-slate-600">
              {a.selected.path} is binary or larger than 512 KiB ({a.selected.size} bytes); it is not shown here.
            </p>
          ) : (
            <>
              <h2 className="mono mb-2 text-sm font-semibold">{a.selected.path}</h2>
              <pre className="mono overflow-x-auto rounded bg-slate-50 p-3 text-xs" tabIndex={0}>
                <code className="hljs" dangerouslySetInnerHTML={{ __html: highlighted(a.selected.path, a.selected.text) }} />
              </pre>
            </>
          )}
        </section>
      </div>
    </>
  );
}
