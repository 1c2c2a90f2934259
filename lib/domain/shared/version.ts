/**
 * Cookbook versions and Chef-style version constraints (chef-cli and Chef's `Chef::VersionConstraint`):
 * `~> 1.2` (>= 1.2, < 2.0), `~> 1.2.3` (>= 1.2.3, < 1.3), `>=`, `>`, `<=`, `<`,
 * `=`, `!=`, and a bare version meaning `=`. Several requirements may be joined
 * with commas; all must hold.
 */

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

const OP = /^\s*(~>|>=|<=|!=|=|>|<)?\s*(\d+(?:\.\d+){0,2})\s*$/;

export interface ParsedConstraint {
  op: '~>' | '>=' | '<=' | '!=' | '=' | '>' | '<';
  version: string;
}

/** Parses one requirement or a comma-separated list; null when malformed. */
export function parseConstraint(text: string): ParsedConstraint[] | null {
  const parts = text.split(',');
  const out: ParsedConstraint[] = [];
  for (const p of parts) {
    const m = OP.exec(p);
    if (!m) return null;
    out.push({ op: (m[1] ?? '=') as ParsedConstraint['op'], version: m[2] });
  }
  return out;
}

function pessimisticUpper(version: string): string {
  const parts = version.split('.').map(Number);
  if (parts.length === 1) return `${parts[0] + 1}`;
  // ~> 1.2 → < 2.0 ; ~> 1.2.3 → < 1.3.0: drop the last part, bump the one before it.
  const head = parts.slice(0, -1);
  head[head.length - 1] += 1;
  return head.join('.');
}

function satisfiesOne(version: string, c: ParsedConstraint): boolean {
  const cmp = compareVersions(version, c.version);
  switch (c.op) {
    case '=':
      return cmp === 0;
    case '!=':
      return cmp !== 0;
    case '>':
      return cmp > 0;
    case '<':
      return cmp < 0;
    case '>=':
      return cmp >= 0;
    case '<=':
      return cmp <= 0;
    case '~>':
      return cmp >= 0 && compareVersions(version, pessimisticUpper(c.version)) < 0;
  }
}

/** Whether `version` meets `constraint`; a malformed constraint never does (fail closed). */
export function satisfies(version: string, constraint: string): boolean {
  const parsed = parseConstraint(constraint);
  return !!parsed && parsed.every((c) => satisfiesOne(version, c));
}
