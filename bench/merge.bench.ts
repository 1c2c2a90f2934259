import { mergePolicy, type IncludedPolicy, type ParentPolicy } from '@/lib/domain';
import { generateLock } from './lib/generate';
import { round, timeMedian, type BenchResult } from './lib/harness';

/** mergePolicy with 20 includes × 250 cookbooks × 2,000 attribute leaves, against JSON.parse of all the inputs' text. */
export default async function bench(): Promise<BenchResult[]> {
  const includes: IncludedPolicy[] = Array.from({ length: 20 }, (_, i) => {
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
  const ours = timeMedian(() => mergePolicy(parent, includes), 9, 2);
  const base = timeMedian(() => texts.map((t) => JSON.parse(t)), 9, 2);
  return [
    {
      name: 'mergePolicy, 20 includes x 250 cookbooks x 2,000 leaves',
      ours_ms: round(ours),
      baseline: "JSON.parse of all the inputs' text",
      baseline_ms: round(base),
      ratio: round(ours / base),
      goal: '<= 3x',
      met: ours / base <= 3,
      note: `${Object.keys(check.lock.cookbook_locks).length} cookbooks merged, ${(texts.reduce((n, t) => n + t.length, 0) / 1e6).toFixed(1)} MB of input`,
    },
  ];
}
