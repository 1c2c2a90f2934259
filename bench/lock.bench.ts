import { computeRevisionId, validateLock } from '@/lib/domain';
import { generateLock } from './lib/generate';
import { ZLock } from './lib/zod-lock';
import { round, timeMedian, type BenchResult } from './lib/harness';

/**
 * validateLock and computeRevisionId on a 5,000-cookbook lock, against JSON.parse / JSON.stringify of the same
 * document, against a zod schema of the same rules, and the revision id as the upload path computes it: from
 * the text (number lexemes kept), which is what a user's upload waits for.
 */
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
  const revisionTextMs = timeMedian(() => computeRevisionId(text));
  const zodMs = timeMedian(() => {
    if (!ZLock.safeParse(parsed).success) throw new Error('generated lock must pass the zod schema');
  });
  // Same rules: a lock both refuse, for the same reason.
  const broken = structuredClone(parsed);
  broken.cookbook_locks[Object.keys(broken.cookbook_locks)[0]].version = 'banana';
  if (validateLock(broken).ok || ZLock.safeParse(broken).success) throw new Error('both validators must refuse version "banana"');
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
      name: 'validateLock vs a zod schema of the same rules, 5,000 cookbooks',
      ours_ms: round(validateMs),
      baseline: 'zod 4 safeParse (bench/lib/zod-lock.ts)',
      baseline_ms: round(zodMs),
      ratio: round(validateMs / zodMs),
      goal: '<= 1x',
      met: validateMs <= zodMs,
      note: `${round(zodMs / validateMs, 1)}x faster than the zod schema`,
    },
    {
      name: 'computeRevisionId from text (the upload path), 5,000 cookbooks',
      ours_ms: round(revisionTextMs),
      baseline: 'JSON.parse of the same text',
      baseline_ms: round(parseMs),
      ratio: round(revisionTextMs / parseMs),
      goal: '<= 2x',
      met: revisionTextMs / parseMs <= 2,
      note: `JSON.parse, one scan for number lexemes and key order, the revision text and its hash; from a parsed lock: ${round(revisionMs)} ms`,
    },
    {
      name: 'computeRevisionId (parsed lock), 5,000 cookbooks',
      ours_ms: round(revisionMs),
      baseline: 'JSON.stringify of the same lock',
      baseline_ms: round(stringifyMs),
      ratio: round(revisionMs / stringifyMs),
      goal: '<= 2x',
      met: revisionMs / stringifyMs <= 2,
      note: `from raw text (number lexemes kept, what an upload pays): ${round(revisionTextMs)} ms`,
    },
  ];
}
