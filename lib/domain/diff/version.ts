/** Cookbook versions: `x.y` or `x.y.z`, compared numerically part by part (missing parts are 0). */
export function parseVersion(v: string): bigint[] {
  return v.split('.').map((p) => (/^\d+$/.test(p) ? BigInt(p) : 0n));
}

export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  for (let i = 0; i < 3; i++) {
    const x = pa[i] ?? 0n;
    const y = pb[i] ?? 0n;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Which part changed first between two versions. */
export function bumpLevel(a: string, b: string): 'major' | 'minor' | 'patch' | null {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  const levels = ['major', 'minor', 'patch'] as const;
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0n) !== (pb[i] ?? 0n)) return levels[i];
  return null;
}
