/**
 * Records chef-cli's outcomes for the corpus into test/fixtures/chef-cli-corpus/ (needs the toolchain):
 * `. ~/.cache/chef-toolchain/env.sh && npx tsx test/differential/record-corpus.ts`
 * The minimal defect cases of corpus-cases.ts, plus a few generated cases with fixed seeds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runChef } from './chef-run';
import { corpusCases } from './corpus-cases';
import { generateIncludeSetup, generatePolicy } from './generate';
import type { DiffCase } from './model';
import { serializeJson } from '@/lib/domain';

const OUT = path.resolve(import.meta.dirname, '../fixtures/chef-cli-corpus');
const chefVersion = execFileSync('chef', ['--version'], { encoding: 'utf8' }).split('\n').find((l) => /chef-cli|Chef CLI|version/i.test(l))?.trim() ?? 'unknown';
const entries: { defect: string; case: DiffCase }[] = [
  ...corpusCases(),
  ...[11, 29, 4242].map((s, i) => ({ defect: 'Generated Policyfile (fixed seed): ties, awkward keys and strings, named run lists', case: generatePolicy(s, 900 + i) })),
  ...[120286, 7007, 7019, 31337].map((s, i) => ({ defect: 'Generated include setup (fixed seed)', case: generateIncludeSetup(s, 900 + i) })),
];
const { outcomes, root } = await runChef(entries.map((e) => e.case));
fs.mkdirSync(OUT, { recursive: true });
for (const e of entries) {
  const file = path.join(OUT, `${e.case.id}.json`);
  // serializeJson keeps number lexemes and key order; the corpus test reads it back with parseLossless.
  fs.writeFileSync(file, serializeJson({ defect: e.defect, recorded_with: chefVersion, case: e.case, chef: outcomes.get(e.case.id) }, 2) + '\n');
  const o = outcomes.get(e.case.id)!;
  console.log(`${e.case.id}: ${Object.entries(o).map(([d, x]) => `${d} ${x.lock ? 'ok' : 'refused'}`).join(', ')}`);
}
fs.rmSync(root, { recursive: true, force: true });

