import { computeRevisionId, validateLock } from '@/lib/domain';
import { generateLock } from './lib/generate';
import { round, timeMedian, type BenchResult } from './lib/harness';

/** validateLock and computeRevisionId on a 5,000-cookbook lock, against JSON.parse / JSON.stringify of the same document. */
export default async function bench(): Promise<BenchResult[]> {
  const lock = generateLock('big', 5000, 2000);
  const text = JSON.stringify(lock);
  const parsed = JSON.parse(text);

  const parseMs = timeMedian(() => JSON.parse(text));
  const validateMs = timeMedian(() => {
    if (!validateLock(parsed).ok) throw new Error('generated lock must validate');
  });
  const stringifyMs = timeMedian(() => JSON.stringify(parsed));
  const revisionMs = timeMedian(() => computeRevisionId(parsed));
  const revisionTextMs = timeMedian(() => computeRevisionId(text), 7, 1);
  return [
    {
      name: 'validateLock, 5,000 cookbooks',
      ours_ms: round(validateMs),
      baseline: 'JSON.parse of the same text',
      baseline_ms: round(parseMs),
      ratio: round(validateMs / parseMs),
      goal: '<= 2x',
      met: validateMs / parseMs <= 2,
      note: `${(text.length / 1e6).toFixed(1)} MB document`,
    },
    {
      name: 'computeRevisionId (parsed lock), 5,000 cookbooks',
      ours_ms: round(revisionMs),
      baseline: 'JSON.stringify of the same lock',
      baseline_ms: round(stringifyMs),
      ratio: round(revisionMs / stringifyMs),
      goal: '<= 2x',
      met: revisionMs / stringifyMs <= 2,
      note: `from raw text (number lexemes kept): ${round(revisionTextMs)} ms`,
    },
  ];
}
