/** Deterministic generated locks for benchmarks. */
import { computeRevisionId, type PolicyLock } from '@/lib/domain';

/** A small deterministic PRNG (mulberry32): benchmarks must not depend on Math.random. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');

export function generateLock(name: string, cookbooks: number, attributeLeaves = 500, seed = 1): PolicyLock {
  const r = rng(seed);
  const cookbook_locks: PolicyLock['cookbook_locks'] = {};
  const dependencies: Record<string, [string, string][]> = {};
  for (let i = 0; i < cookbooks; i++) {
    const cb = `cookbook_${String(i).padStart(5, '0')}`;
    const version = `${Math.floor(r() * 20)}.${Math.floor(r() * 20)}.${Math.floor(r() * 20)}`;
    cookbook_locks[cb] = {
      version,
      identifier: hex(r, 40),
      dotted_decimal_identifier: `${Math.floor(r() * 1e15)}.${Math.floor(r() * 1e15)}.${Math.floor(r() * 1e12)}`,
      cache_key: `${cb}-${version}-supermarket.example.com`,
      origin: `https://supermarket.example.com/api/v1/cookbooks/${cb}/versions/${version}/download`,
      source_options: { artifactserver: `https://supermarket.example.com/api/v1/cookbooks/${cb}/versions/${version}/download`, version },
    };
    dependencies[`${cb} (${version})`] = i > 0 ? [[`cookbook_${String(i - 1).padStart(5, '0')}`, '>= 0.0.0']] : [];
  }
  const default_attributes: Record<string, unknown> = {};
  for (let i = 0; i < attributeLeaves; i++) {
    const group = `group_${i % 50}`;
    const g = (default_attributes[group] ??= {}) as Record<string, unknown>;
    g[`key_${i}`] = i % 3 === 0 ? r() * 1000 : i % 3 === 1 ? `value-${hex(r, 8)}` : i % 2 === 0;
  }
  const lock: PolicyLock = {
    revision_id: '',
    name,
    run_list: Object.keys(cookbook_locks).slice(0, Math.min(cookbooks, 200)).map((c) => `recipe[${c}::default]`),
    cookbook_locks,
    default_attributes,
    override_attributes: { tuning: { level: 3 } },
    solution_dependencies: { Policyfile: Object.keys(cookbook_locks).map((c) => [c, '>= 0.0.0'] as [string, string]), dependencies },
  };
  lock.revision_id = computeRevisionId(lock);
  return lock;
}

/** A copy of `lock` with `changes` scattered edits: version bumps, identifier changes, adds, removes, attribute edits. */
export function mutateLock(lock: PolicyLock, changes: number, seed = 2): PolicyLock {
  const r = rng(seed);
  const next = structuredClone(lock);
  const names = Object.keys(next.cookbook_locks);
  for (let k = 0; k < changes; k++) {
    const kind = k % 5;
    const cb = names[Math.floor(r() * names.length)];
    const entry = next.cookbook_locks[cb];
    if (kind === 0 && entry) entry.version = entry.version.replace(/\d+$/, (d) => String(Number(d) + 1));
    else if (kind === 1 && entry) entry.identifier = hex(r, 40);
    else if (kind === 2) next.cookbook_locks[`added_${k}`] = { version: '1.0.0', identifier: hex(r, 40) };
    else if (kind === 3) delete next.cookbook_locks[cb];
    else {
      const g = next.default_attributes![`group_${k % 50}`] as Record<string, unknown>;
      g[`key_changed_${k}`] = k;
    }
  }
  next.revision_id = computeRevisionId(next);
  return next;
}
