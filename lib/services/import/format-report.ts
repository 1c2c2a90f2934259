/** Issue 27: the importer's final report as text (what `npm run import` prints). */
import type { ImportEntry, ImportReport } from '@/lib/types/import';
import type { VerifyResult } from './verify';

function lines(title: string, entries: ImportEntry[]): string[] {
  if (!entries.length) return [];
  return [`${title} (${entries.length}):`, ...entries.map((e) => `  ${e.kind} ${e.name}${e.detail ? `: ${e.detail}` : ''}`)];
}

function rightsLines(r: ImportReport): string[] {
  const rights = r.rights!;
  if (!rights.people.length && !rights.notes.length) return [];
  return [
    `Rights (--rights ${rights.mode})${r.dryRun ? ', as this run would leave them' : ''}:`,
    ...rights.people.flatMap((p) => [`  ${p.user}${p.email ? ` <${p.email}>` : ''}${p.given ? '' : ` (${p.note ?? 'not given'})`}:`, ...p.rights.map((x) => `    ${x}`)]),
    ...rights.notes.map((x) => `  note: ${x}`),
  ];
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
    ...lines('Needs attention', r.attention ?? []),
    ...(r.rights ? rightsLines(r) : []),
    ...(not.length ? ['Not imported (the console serves Policyfile fleets):', ...not] : []),
    '',
  ].join('\n');
}

/** Issue 42: `npm run import -- --verify`'s answer as text. */
export function formatVerify(r: VerifyResult): string {
  const head = `Verify ${r.source}: ${r.compared} objects compared, ${r.differences.length ? `${r.differences.length} difference(s)` : 'no difference'}`;
  return [head, ...lines('Differences', r.differences), ...lines('Only in the console (not a failure: its own administrators, validator …)', r.consoleOnly), ''].join('\n');
}
