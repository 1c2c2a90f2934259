/** A cookbook artifact's manifest, as Chef Server stores it: the files it lists. Pure. */

const SEGMENTS = ['recipes', 'attributes', 'files', 'templates', 'libraries', 'definitions', 'resources', 'providers', 'root_files'] as const;

export interface ManifestFile {
  name: string;
  path: string;
  checksum: string;
  specificity: string;
}

/**
 * Every file a manifest lists: API v2 `all_files` and the v0/v1 segments alike
 * (a manifest may carry both; every checksum in it must be stored).
 */
export function manifestFiles(m: Record<string, unknown>): ManifestFile[] {
  const out: ManifestFile[] = [];
  const take = (list: unknown, segment?: string) => {
    if (!Array.isArray(list)) return;
    for (const f of list) {
      if (!f || typeof f !== 'object') continue;
      const o = f as Record<string, unknown>;
      const name = typeof o.name === 'string' ? o.name : '';
      out.push({
        name: segment && !name.includes('/') && segment !== 'root_files' ? `${segment}/${name}` : name,
        path: typeof o.path === 'string' ? o.path : name,
        checksum: String(o.checksum ?? ''),
        specificity: typeof o.specificity === 'string' ? o.specificity : 'default',
      });
    }
  };
  take(m.all_files);
  for (const s of SEGMENTS) take(m[s], s);
  const seen = new Set<string>();
  return out.filter((f) => {
    const key = `${f.path}\0${f.checksum}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

