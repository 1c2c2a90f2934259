import * as jsondiffpatch from 'jsondiffpatch';
import { diffLocks } from '@/lib/domain';
import { generateLock, mutateLock } from './lib/generate';
import { round, timeMedian, type BenchResult } from './lib/harness';

/** diffLocks on two 5,000-cookbook locks with 500 scattered changes, against jsondiffpatch.diff on the same pair. */
export default async function bench(): Promise<BenchResult[]> {
  const a = generateLock('big', 5000, 2000);
  const b = mutateLock(a, 500);
  const patcher = jsondiffpatch.create();
  const d = diffLocks(a, b);
  if (d.cookbooks.length < 300) throw new Error(`expected ~500 changes, got ${d.cookbooks.length}`);
  const ours = timeMedian(() => diffLocks(a, b), 9, 2);
  const base = timeMedian(() => patcher.diff(a, b), 9, 2);
  return [
    {
      name: 'diffLocks, 5,000 cookbooks, 500 changes',
      ours_ms: round(ours),
      baseline: 'jsondiffpatch.diff, same pair',
      baseline_ms: round(base),
      ratio: round(ours / base),
      goal: '<= 0.2x (5x faster)',
      met: ours / base <= 0.2,
      note: `${round(base / ours, 1)}x faster; ${d.summary.total} changes classified`,
    },
  ];
}
