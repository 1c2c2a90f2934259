/**
 * Exploring by hand: `. ~/.cache/chef-toolchain/env.sh && npx tsx test/differential/explore.ts [policies] [includes] [firstSeed]`
 * runs generated cases through the real chef-cli and prints every disagreement with the console.
 * `--record DIR` writes each disagreeing case with chef-cli's outcomes as a corpus file; `--keep` keeps the workspaces.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runChef } from './chef-run';
import { checkCase } from './compare';
import { generateIncludeSetup, generatePolicy } from './generate';
import { describeCase, type DiffCase } from './model';

const args = process.argv.slice(2);
const recordAt = args.indexOf('--record');
const recordDir = recordAt >= 0 ? args.splice(recordAt, 2)[1] : null;
const keepAt = args.indexOf('--keep');
const keep = keepAt >= 0 && !!args.splice(keepAt, 1).length;
const [nPol = 20, nInc = 10, first = 1] = args.map(Number);
const cases: DiffCase[] = [];
for (let i = 0; i < nPol; i++) cases.push(generatePolicy(first + i, i));
for (let i = 0; i < nInc; i++) cases.push(generateIncludeSetup(first + 100000 + i, i));
const t0 = Date.now();
const { root, outcomes } = await runChef(cases);
const t1 = Date.now();
let bad = 0;
const stats = { chefOk: 0, chefRefused: 0, consoleRefused: 0 };
for (const c of cases) {
  const o = outcomes.get(c.id)!;
  const checks = checkCase(c, o);
  const subject = checks[checks.length - 1];
  if (subject.chefOk) stats.chefOk++;
  else stats.chefRefused++;
  if (subject.consoleOk === false) stats.consoleRefused++;
  const problems = checks.flatMap((x) => x.problems.map((p) => `${x.policy}: ${p}`));
  if (!problems.length) continue;
  bad++;
  console.log(`\n==== ${describeCase(c)}\n${problems.join('\n')}`);
  for (const [dir, out] of Object.entries(o)) if (out.error) console.log(`chef-cli ${dir}: ${out.error.split('\n').slice(0, 3).join(' / ')}`);
  if (recordDir) fs.writeFileSync(path.join(recordDir, `${c.id}.json`), JSON.stringify({ note: 'found by explore.ts', case: c, chef: o }, null, 2) + '\n');
}
console.log(`\n${cases.length} cases, ${bad} with problems; chef ${t1 - t0} ms, checks ${Date.now() - t1} ms; subject ${JSON.stringify(stats)}; ${keep ? `workspaces kept in ${root}` : 'workspaces removed (--keep keeps them)'}`);
if (!keep) fs.rmSync(root, { recursive: true, force: true });
