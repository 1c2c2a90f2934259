/** Issue 27: the importer's final report as text (what `npm run import` prints). */
import type { ImportEntry, ImportReport } from '@/lib/types/import';

function lines(title: string, entries: ImportEntry[]): string[] {
  if (!entries.length) return [];
  return [`${title} (${entries.length}):`, ...entries.map((e) => `  ${e.kind} ${e.name}${e.detail ? `: ${e.detail}` : ''}`)];
}

export function formatReport(runId: string, r: ImportReport): string {
  const head = `Import ${runId} from ${r.source}${r.dryRun ? ' (dry run: nothing was written)' : ''}${r.prefer ? ` --prefer ${r.prefer}` : ''}`;
  const counts = `${r.dryRun ? 'would import' : 'imported'} ${r.imported.length}, unchanged ${r.unchanged}, skipped ${r.skipped.length}, conflicts ${r.conflicts.length}, ${r.bytes} bytes of cookbook files`;
  const not = r.notImported.filter((n) => n.names.length).map((n) => `  ${n.kind}: ${n.names.join(', ')}`);
  return [
    head,
    counts,
    ...lines(r.dryRun ? 'Would import' : 'Imported', r.imported),
    ...lines('Skipped', r.skipped),
    ...lines('Conflicts', r.conflicts),
    ...(not.length ? ['Not imported (the console serves Policyfile fleets):', ...not] : []),
    '',
  ].join('\n');
}
