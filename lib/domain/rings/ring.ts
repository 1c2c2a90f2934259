/**
 * Canary rings (issue 30). A ringed rollout hands part of a stage a new
 * revision before it becomes the stage's revision for every node. A node is
 * in the ring of a step when its bucket — a stable hash of the ring's seed
 * (the stage and policy names) and the node's name, in [0, 10000) — is below
 * the step's percent × 100, or when the rollout names it.
 *
 * The seed is the stage and the policy, not the rollout: the read path
 * computes the bucket before it reads anything (one query answers the node),
 * and a stage's canaries stay the same nodes from one rollout to the next,
 * which is what operators expect of a canary set. Widening only ever adds
 * nodes (a node in a 5 % ring is in the 25 % ring).
 */

/** The number of buckets: a percent is a whole number of hundredths of the stage. */
export const RING_BUCKETS = 10_000;

/** UTF-8 bytes of a string, without TextEncoder (lib/domain uses no host APIs). */
function utf8(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

/** 64-bit FNV-1a as two 32-bit halves, finished with murmur3's avalanche on each, so that similar names spread evenly. */
function hash64(bytes: number[]): [number, number] {
  // FNV-1a 64: offset basis 0xcbf29ce484222325, prime 0x100000001b3 (= 2^40 + 0x1b3).
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const b of bytes) {
    lo ^= b;
    // (hi, lo) × 0x100000001b3, modulo 2^64.
    const loMul = lo * 0x1b3;
    const carry = Math.floor(loMul / 0x100000000);
    const newLo = loMul >>> 0;
    hi = (Math.imul(hi, 0x1b3) + ((lo << 8) >>> 0) + carry) >>> 0;
    lo = newLo;
  }
  return [fmix32(hi ^ lo), fmix32((hi + 0x9e3779b9) ^ Math.imul(lo, 0x85ebca6b))];
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The ring seed of a stage × policy. */
export function ringSeed(stage: string, policy: string): string {
  return `${stage}\u0000${policy}`;
}

/** The node's bucket in [0, RING_BUCKETS) for a seed: the same on every run, every instance, every database. */
export function ringBucket(seed: string, nodeName: string): number {
  const [a, b] = hash64(utf8(`${seed}\u0000${nodeName}`));
  // 53 uniform bits → [0, 1) → a bucket, with no modulo bias worth the name (2^-39).
  const unit = (a * 0x200000 + (b >>> 11)) / 2 ** 53;
  return Math.floor(unit * RING_BUCKETS);
}

/** The buckets a step's percent covers: [0, percent × 100). */
function ringLimit(percent: number): number {
  return Math.round(percent * 100);
}

interface RingSpec {
  /** ringSeed(stage, policy). */
  seed: string;
  /** The current step's percent of the stage (0–100). */
  percent: number;
  /** Nodes in the ring whatever their bucket. */
  named?: readonly string[];
}

/** Whether a node is in the ring. */
export function inRing(spec: RingSpec, nodeName: string): boolean {
  if (spec.named?.includes(nodeName)) return true;
  return ringBucket(spec.seed, nodeName) < ringLimit(spec.percent);
}

/** Steps of a ringed rollout: 1–10 percents, each in (0, 100], strictly increasing, the last 100. Returns what is wrong, one sentence each. */
export function validateRingSteps(steps: unknown): string[] {
  if (!Array.isArray(steps) || steps.length === 0) return ['steps: give 1 to 10 percents, e.g. [5, 25, 100]'];
  const out: string[] = [];
  if (steps.length > 10) out.push('steps: at most 10 steps');
  steps.forEach((s, i) => {
    if (typeof s !== 'number' || !Number.isFinite(s) || s <= 0 || s > 100) out.push(`steps[${i}]: a percent greater than 0 and at most 100`);
    else if (Math.round(s * 100) !== s * 100) out.push(`steps[${i}]: at most two decimals (a ring is counted in hundredths of a percent)`);
    else if (i > 0 && typeof steps[i - 1] === 'number' && s <= (steps[i - 1] as number)) out.push(`steps[${i}]: each step widens the ring (greater than the step before)`);
  });
  if (!out.length && steps[steps.length - 1] !== 100) out.push('steps: the last step is 100 (it makes the revision the stage\'s revision)');
  return out;
}


/**
 * Which of the stage's nodes each step reaches: for every step, the nodes it
 * adds (a node belongs to the first step whose ring holds it; named nodes to
 * the first step).
 */
export function ringSteps(spec: { seed: string; steps: readonly number[]; named?: readonly string[] }, nodeNames: readonly string[]): string[][] {
  const out: string[][] = spec.steps.map(() => []);
  for (const n of nodeNames) {
    if (spec.named?.includes(n)) {
      out[0].push(n);
      continue;
    }
    const b = ringBucket(spec.seed, n);
    const k = spec.steps.findIndex((p) => b < ringLimit(p));
    if (k >= 0) out[k].push(n);
  }
  return out;
}
