/** Benchmark plumbing: timing with warm-up, and the result row every benchmark returns. */
export interface BenchResult {
  name: string;
  ours_ms: number;
  baseline: string;
  baseline_ms: number;
  /** ours / baseline for times; for throughput benchmarks, ours' share of the baseline's requests per second. */
  ratio: number;
  goal: string;
  met: boolean;
  note?: string;
}

/** Median wall time of `fn` in milliseconds, after warm-up runs. */
export function timeMedian(fn: () => unknown, runs = 15, warmup = 3): number {
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

export const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;
