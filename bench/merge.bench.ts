import { mergePolicy, provenanceToJson, type IncludedPolicy, type ParentPolicy } from '@/lib/domain';
import { generateLock } from './lib/generate';
import { round, timeMedian, type BenchResult } from './lib/harness';

/** `count` includes of 250 cookbooks and 2,000 attribute leaves each, with distinct cookbooks and attribute roots. */
function setup(count: number) {
  const includes: IncludedPolicy[] = Array.from({ length: count }, (_, i) => {
    const lock = generateLock(`inc${i}`, 250, 2000, i + 1);
    // Distinct cookbook names and attribute roots per include, so the merge succeeds and does all its work.
    lock.cookbook_locks = Object.fromEntries(Object.entries(lock.cookbook_locks).map(([k, v]) => [`inc${i}_${k}`, v]));
    lock.run_list = lock.run_list.map((r) => r.replace('recipe[', `recipe[inc${i}_`));
    lock.default_attributes = { [`inc${i}`]: lock.default_attributes };
    lock.solution_dependencies = { Policyfile: [], dependencies: {} };
    return { name: `inc${i}`, source_options: { path: `inc${i}.lock.json` }, lock };
  });
  const parent: ParentPolicy = { name: 'app', run_list: ['app::default'], cookbook_locks: { app: { version: '1.0.0', identifier: 'app' } }, default_attributes: { app: { workers: 8 } } };
  const texts = [JSON.stringify(parent), ...includes.map((i) => JSON.stringify(i.lock))];
  const check = mergePolicy(parent, includes);
  if (!check.ok) throw new Error(`bench merge must succeed: ${check.conflicts[0].message}`);
  return { includes, parent, texts, cookbooks: Object.keys(check.lock.cookbook_locks).length, mb: texts.reduce((n, t) => n + t.length, 0) / 1e6 };
}

/**
 * mergePolicy with 20 includes × 250 cookbooks × 2,000 attribute leaves, against JSON.parse of all the
 * inputs' text; and the same at 10× the size (200 includes: 50,000 cookbooks, 400,000 leaves), to show
 * that the time grows linearly with the input.
 */
export default async function bench(): Promise<BenchResult[]> {
  const rows: BenchResult[] = [];
  let small: { ms: number; mb: number } | null = null;
  for (const count of [20, 200]) {
    const { includes, parent, texts, cookbooks, mb } = setup(count);
    const runs = count === 20 ? 9 : 5;
    const ours = timeMedian(() => mergePolicy(parent, includes), runs, 2);
    const base = timeMedian(() => texts.map((t) => JSON.parse(t)), runs, 2);
    const growth = small ? `; ${round(mb / small.mb, 1)}x the input of the 20-include row took ${round(ours / small.ms, 1)}x its time (linear: the same factor)` : '';
    rows.push({
      name: `mergePolicy, ${count} includes x 250 cookbooks x 2,000 leaves${count === 20 ? '' : ' (10x size)'}`,
      ours_ms: round(ours),
      baseline: "JSON.parse of all the inputs' text",
      baseline_ms: round(base),
      ratio: round(ours / base),
      goal: '<= 3x',
      met: ours / base <= 3,
      note: `${cookbooks} cookbooks merged, ${mb.toFixed(1)} MB of input${growth}`,
    });
    if (count === 20) {
      // What a compose preview pays for the merge: the result and its provenance as JSON (the merge lists
      // attribute provenance only when read).
      const preview = timeMedian(() => {
        const r = mergePolicy(parent, includes);
        if (r.ok) provenanceToJson(r.provenance);
      }, runs, 2);
      rows.push({
        name: `mergePolicy + provenanceToJson, ${count} includes x 250 cookbooks x 2,000 leaves`,
        ours_ms: round(preview),
        baseline: "JSON.parse of all the inputs' text",
        baseline_ms: round(base),
        ratio: round(preview / base),
        goal: 'report only',
        met: true,
        note: 'the merge as a compose preview uses it, provenance of every attribute node included',
      });
    }
    small ??= { ms: ours, mb };
  }
  return rows;
}
