import { describe, expect, it } from 'vitest';
import { inRing, ringBucket, ringSeed, ringSteps, validateRingSteps, RING_BUCKETS } from '@/lib/domain/rings';

const names = Array.from({ length: 10_000 }, (_, i) => `node-${String(i).padStart(5, '0')}.example.com`);
const seed = ringSeed('production', 'web');

describe('ring membership (issue 30)', () => {
  it('is stable: the same node gets the same bucket every time (fixed vectors guard against a change of hash)', () => {
    const a = names.slice(0, 50).map((n) => ringBucket(seed, n));
    const b = names.slice(0, 50).map((n) => ringBucket(seed, n));
    expect(a).toEqual(b);
    for (const x of a) expect(x >= 0 && x < RING_BUCKETS && Number.isInteger(x)).toBe(true);
    // Recorded once: a change here moves nodes between rings on upgrade, which operators would see as a surprise rollout.
    expect([ringBucket(seed, 'web-1'), ringBucket(seed, 'web-2'), ringBucket(ringSeed('dev', 'web'), 'web-1'), ringBucket(seed, 'nœud-ü')]).toEqual(RECORDED);
  });

  it.each([1, 5, 25, 50, 75, 99])('puts %d%% of 10,000 node names in the ring, within ±2%%', (percent) => {
    const count = names.filter((n) => inRing({ seed, percent }, n)).length;
    expect(Math.abs(count / names.length - percent / 100)).toBeLessThanOrEqual(0.02);
  });

  it('spreads buckets evenly (each tenth of the range holds 10% ± 2% of the names)', () => {
    const tenths = new Array(10).fill(0);
    for (const n of names) tenths[Math.floor(ringBucket(seed, n) / 1000)]++;
    for (const t of tenths) expect(Math.abs(t / names.length - 0.1)).toBeLessThanOrEqual(0.02);
  });

  it('is monotone when widening: every node of a ring is in every wider ring', () => {
    const steps = [1, 5, 25, 50, 100];
    for (let i = 1; i < steps.length; i++) {
      for (const n of names) if (inRing({ seed, percent: steps[i - 1] }, n)) expect(inRing({ seed, percent: steps[i] }, n)).toBe(true);
    }
    expect(names.every((n) => inRing({ seed, percent: 100 }, n))).toBe(true);
    expect(names.some((n) => inRing({ seed, percent: 0 }, n))).toBe(false);
  });

  it('differs between stages and policies (a stage’s canaries are not every stage’s)', () => {
    const other = ringSeed('staging', 'web');
    const both = names.filter((n) => inRing({ seed, percent: 10 }, n) && inRing({ seed: other, percent: 10 }, n)).length;
    expect(both).toBeLessThan(300); // independent: about 1% of names, not 10%
  });

  it('puts named nodes in the ring whatever their bucket', () => {
    const outside = names.find((n) => !inRing({ seed, percent: 5 }, n))!;
    expect(inRing({ seed, percent: 5, named: [outside] }, outside)).toBe(true);
    expect(inRing({ seed, percent: 0, named: [outside] }, outside)).toBe(true);
  });

  it('lists the nodes each step adds', () => {
    const sample = names.slice(0, 1000);
    const per = ringSteps({ seed, steps: [5, 25, 100], named: [sample[999]] }, sample);
    expect(per.flat().sort()).toEqual([...sample].sort());
    expect(per[0]).toContain(sample[999]);
    for (const n of per[1]) expect(inRing({ seed, percent: 5 }, n)).toBe(false);
  });

  it.each([
    [[5, 25, 100], []],
    [[100], []],
    [[], ['steps: give 1 to 10 percents, e.g. [5, 25, 100]']],
    [[25, 5, 100], ['steps[1]: each step widens the ring (greater than the step before)']],
    [[5, 50], ["steps: the last step is 100 (it makes the revision the stage's revision)"]],
    [[0, 100], ['steps[0]: a percent greater than 0 and at most 100']],
    [[5.001, 100], ['steps[0]: at most two decimals (a ring is counted in hundredths of a percent)']],
    ['5,100', ['steps: give 1 to 10 percents, e.g. [5, 25, 100]']],
  ])('validates steps %j', (steps, errors) => {
    expect(validateRingSteps(steps)).toEqual(errors);
  });
});

const RECORDED = [8595, 6329, 3164, 8890];
