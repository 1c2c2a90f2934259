import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { recentImports } from '@/lib/services/import';
import type { ImportEntry } from '@/lib/types/import';
import { EmptyState, PageHeader } from '@/components/page-header';
import { Time } from '@/components/time';

export const metadata: Metadata = { title: 'Import' };
export const dynamic = 'force-dynamic';

const STATUS: Record<string, string> = {
  finished: 'bg-emerald-50 text-emerald-800 ring-emerald-200',
  running: 'bg-sky-50 text-sky-800 ring-sky-200',
  interrupted: 'bg-amber-50 text-amber-800 ring-amber-200',
  failed: 'bg-rose-50 text-rose-800 ring-rose-200',
};

function Entries({ title, entries }: { title: string; entries: ImportEntry[] }) {
  if (!entries.length) return null;
  return (
    <section className="mt-3">
      <h4 className="text-sm font-semibold text-slate-800">
        {title} ({entries.length})
      </h4>
      <ul className="mt-1 max-h-72 space-y-0.5 overflow-auto text-xs text-slate-700">
        {entries.map((e, i) => (
          <li key={`${e.kind}:${e.name}:${i}`}>
            <span className="font-mono text-slate-500">{e.kind}</span> <span className="font-mono">{e.name}</span>
            {e.detail ? <span className="text-slate-600">: {e.detail}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

export default async function ImportPage() {
  const access = await requireAccess();
  if (!can(access, 'admin.import')) {
    return (
      <>
        <PageHeader title="Import" />
        <EmptyState title="Administrators only">Imports from a Chef server and their reports are shown to administrators.</EmptyState>
      </>
    );
  }
  const runs = await recentImports(access);
  return (
    <>
      <PageHeader
        title="Import"
        description="The last imports from a Chef Infra Server, chef-zero or a knife-ec-backup / knife download directory, and their reports. Start one from a shell: npm run import -- --server URL --org NAME --user NAME --key FILE, or npm run import -- --dir PATH (see the README, “Moving from Chef Infra Server”)."
      />
      {!runs.length ? (
        <EmptyState title="No imports yet">Run npm run import -- --dry-run … first to see what would change; every run appears here with its report.</EmptyState>
      ) : (
        <ul className="space-y-3">
          {runs.map((r) => (
            <li key={r.id} className="rounded-md border border-slate-200 bg-white p-3">
              <details>
                <summary className="cursor-pointer list-none">
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
                    <span className={`rounded px-1.5 py-0.5 text-xs font-medium ring-1 ${STATUS[r.status] ?? STATUS.running}`}>{r.status}</span>
                    {r.dryRun ? <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">dry run</span> : null}
                    <span className="font-mono text-slate-900">{r.source}</span>
                    <span className="text-slate-600">
                      imported {r.imported} · unchanged {r.unchanged} · skipped {r.skipped} · conflicts {r.conflicts}
                      {r.report ? ` · ${(r.report.bytes / 1048576).toFixed(1)} MB of files` : ''}
                    </span>
                    <span className="text-xs text-slate-500">
                      by {r.startedBy}, <Time iso={r.startedAt} />
                      {r.prefer ? ` · --prefer ${r.prefer}` : ''} · {r.id}
                    </span>
                  </div>
                </summary>
                {r.report ? (
                  <div className="mt-2 border-t border-slate-100 pt-2">
                    <Entries title={r.dryRun ? 'Would import' : 'Imported'} entries={r.report.imported} />
                    <Entries title="Skipped" entries={r.report.skipped} />
                    <Entries title="Conflicts" entries={r.report.conflicts} />
                    <Entries title="Needs attention" entries={r.report.attention ?? []} />
                    {r.report.rights && (r.report.rights.people.length > 0 || r.report.rights.notes.length > 0) ? (
                      <section className="mt-3">
                        <h4 className="text-sm font-semibold text-slate-800">
                          Rights (--rights {r.report.rights.mode}){r.dryRun ? ', as the run would leave them' : ''}
                        </h4>
                        <ul className="mt-1 max-h-72 space-y-1 overflow-auto text-xs text-slate-700">
                          {r.report.rights.people.map((p) => (
                            <li key={p.user}>
                              <span className="font-mono">{p.user}</span>
                              {p.email ? ` (${p.email})` : ''}
                              {p.given ? '' : <span className="text-amber-800">: {p.note ?? 'not given'}</span>}
                              <ul className="ml-4 list-disc">
                                {p.rights.map((x) => (
                                  <li key={x}>{x}</li>
                                ))}
                              </ul>
                            </li>
                          ))}
                          {r.report.rights.notes.map((x) => (
                            <li key={x} className="text-slate-600">
                              {x}
                            </li>
                          ))}
                        </ul>
                      </section>
                    ) : null}
                    {r.report.notImported.some((n) => n.names.length) ? (
                      <section className="mt-3">
                        <h4 className="text-sm font-semibold text-slate-800">Not imported (the console serves Policyfile fleets)</h4>
                        <ul className="mt-1 text-xs text-slate-700">
                          {r.report.notImported
                            .filter((n) => n.names.length)
                            .map((n) => (
                              <li key={n.kind}>
                                {n.kind}: <span className="font-mono">{n.names.join(', ')}</span>
                              </li>
                            ))}
                        </ul>
                      </section>
                    ) : null}
                  </div>
                ) : (
                  <p className="mt-2 text-sm text-slate-600">{r.status === 'running' ? 'Still running, or stopped without finishing (a killed run): run the import again to pick up the rest.' : 'No report.'}</p>
                )}
              </details>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
