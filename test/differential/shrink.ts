/**
 * Shrinks a failing case to a smaller one that still fails (greedy, one chef-cli run per attempt):
 * drops attribute keys, named run lists and run-list items, one at a time. Used only after a failure,
 * so the report shows a minimal Policyfile.
 */
import { orderedKeys, setKeyOrder } from '@/lib/domain';
import { runChef } from './chef-run';
import { checkCase } from './compare';
import type { DiffCase, PolicySpec } from './model';

function without(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const keys = orderedKeys(o).filter((k) => k !== key);
  const out: Record<string, unknown> = {};
  for (const k of keys) Object.defineProperty(out, k, { value: o[k], enumerable: true, writable: true, configurable: true });
  return setKeyOrder(out, keys);
}

/** Every case one step smaller than `c`. */
function* smaller(c: DiffCase): Generator<DiffCase> {
  const withPolicy = (i: number, p: PolicySpec): DiffCase => ({ ...c, policies: c.policies.map((q, j) => (j === i ? p : q)) });
  for (let i = 0; i < c.policies.length; i++) {
    const p = c.policies[i];
    for (const field of ['default', 'override'] as const) for (const k of orderedKeys(p[field])) yield withPolicy(i, { ...p, [field]: without(p[field], k) });
    for (let n = 0; n < p.named.length; n++) yield withPolicy(i, { ...p, named: p.named.filter((_, j) => j !== n) });
    if (p.runList.length > 1) for (let n = 0; n < p.runList.length; n++) yield withPolicy(i, { ...p, runList: p.runList.filter((_, j) => j !== n) });
  }
}

const fails = (c: DiffCase, outcomes: Parameters<typeof checkCase>[1]) => checkCase(c, outcomes).some((x) => x.problems.length > 0);

export async function shrinkCase(c: DiffCase, maxRuns = 40): Promise<{ case: DiffCase; runs: number }> {
  let current = c;
  let runs = 0;
  let progress = true;
  while (progress && runs < maxRuns) {
    progress = false;
    for (const candidate of smaller(current)) {
      if (runs >= maxRuns) break;
      runs++;
      const id = `${c.id}-shrink${runs}`;
      const { outcomes, root } = await runChef([{ ...candidate, id }], { parallel: 1 });
      const still = fails(candidate, outcomes.get(id)!);
      (await import('node:fs')).rmSync(root, { recursive: true, force: true });
      if (still) {
        current = candidate;
        progress = true;
        break;
      }
    }
  }
  return { case: current, runs };
}
