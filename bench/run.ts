/**
 * npm run bench [-- name-filter...]: runs bench/*.bench.ts (only the files whose name contains one of
 * the filters, when given: `npm run bench -- merge lock`), prints a table and writes bench/results.json. Every benchmark measures ours and a baseline in
 * the same run; goals are ratios, never absolute times.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BenchResult } from './lib/harness';

const dir = import.meta.dirname;
const filters = process.argv.slice(2);
const filter = filters.length > 0;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (!filter || filters.some((x) => f.includes(x))))
  .sort();

const results: BenchResult[] = [];
for (const f of files) {
  console.error(`running ${f}…`);
  const mod = await import(path.join(dir, f));
  results.push(...(await mod.default(seconds)));
}

const rows = results.map((r) => [r.name, String(r.ours_ms), r.baseline, String(r.baseline_ms), String(r.ratio), r.goal, r.met ? 'met' : 'MISSED']);
const head = ['name', 'ours_ms', 'baseline', 'baseline_ms', 'ratio', 'goal', ''];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(line(head));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));
for (const r of results) if (r.note) console.log(`  ${r.name}: ${r.note}`);

const out = path.join(dir, 'results.json');
const previous: BenchResult[] = filter && fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : [];
const merged = [...previous.filter((p) => !results.some((r) => r.name === p.name)), ...results];
fs.writeFileSync(out, JSON.stringify(merged, null, 2) + '\n');
console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
process.exit(0);
