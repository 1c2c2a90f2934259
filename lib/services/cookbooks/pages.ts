import { db } from '../../db/client';
import { assertViewable, can, type Access } from '@/lib/auth/permissions';
import type { PolicyLock } from '@/lib/domain';
import { resolveSide } from '../../db/queries/compare';
import { lockPins, missingArtifacts } from '../../db/queries/missing-artifacts';
import { manifestFiles, type ManifestFile } from '@/lib/domain/cookbook/manifest';
import { fileSizes, readFile } from '../../db/file-store/stored-files';

export interface ArtifactPage {
  name: string;
  identifier: string;
  version: string;
  createdAt: string;
  createdBy: string | null;
  metadata: Record<string, unknown>;
  /** Issue 28: one page of the files (FILES_PER_PAGE), in path order; `totalFiles`, `page` and `pages` say where. */
  files: (ManifestFile & { size: number | null })[];
  totalFiles: number;
  page: number;
  pages: number;
  /** The selected file's text (null when binary or too large to show). */
  selected: { path: string; text: string | null; size: number } | null;
}

const SHOW_LIMIT = 512 * 1024;
/** Files listed per artifact page: a 100,000-file manifest is paged, not one huge page. */
export const FILES_PER_PAGE = 200;

/** An artifact's manifest, its files with sizes, and one file's text. Every signed-in user may read cookbooks. */
export async function artifactPage(name: string, identifier: string, file: string | null, page = 1): Promise<ArtifactPage | null> {
  const a = await db().cookbookArtifact.findUnique({ where: { name_identifier: { name, identifier } }, select: { version: true, manifest: true, createdAt: true, createdBy: true } });
  if (!a) return null;
  const manifest = JSON.parse(a.manifest) as Record<string, unknown>;
  const files = manifestFiles(manifest).sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  const chosen = files.find((f) => f.path === file) ?? files.find((f) => f.path === 'recipes/default.rb') ?? files.find((f) => f.path === 'metadata.rb') ?? files[0];
  // Without an explicit page, the page that holds the selected file.
  const pages = Math.max(1, Math.ceil(files.length / FILES_PER_PAGE));
  const at = chosen ? files.indexOf(chosen) : 0;
  const p = Math.min(pages, Math.max(1, Number.isInteger(page) && page > 0 ? page : 1, file && page === 1 ? Math.floor(at / FILES_PER_PAGE) + 1 : 1));
  const shown = files.slice((p - 1) * FILES_PER_PAGE, p * FILES_PER_PAGE);
  // Issue 46: sizes from the files' rows, bytes from whichever store holds them (small files only).
  const sizes = await fileSizes([...new Set([...shown.map((f) => f.checksum), ...(chosen ? [chosen.checksum] : [])])]);
  let selected: ArtifactPage['selected'] = null;
  const size = chosen ? sizes.get(chosen.checksum) : undefined;
  if (chosen && size !== undefined) {
    const buf = size <= SHOW_LIMIT ? await readFile(chosen.checksum) : null;
    const text = buf && !buf.includes(0) ? buf.toString('utf8') : null;
    selected = { path: chosen.path, text, size };
  }
  return {
    name,
    identifier,
    version: a.version,
    createdAt: a.createdAt.toISOString(),
    createdBy: a.createdBy,
    metadata: (manifest.metadata as Record<string, unknown>) ?? {},
    files: shown.map((f) => ({ ...f, size: sizes.get(f.checksum) ?? null })),
    totalFiles: files.length,
    page: p,
    pages,
    selected,
  };
}

/**
 * Before a promotion: which cookbooks of what `to` would run are not on the
 * server, and whether `to` refuses that. `from` is a stage or `rev:<id>`; with
 * `cookbook`, what `to` would run is its own lock with that one cookbook taken
 * from `from` (a single-cookbook promotion).
 */
export async function artifactCheck(access: Access, policy: string, from: string, to: string, cookbook?: string): Promise<{ missing: string[]; toRequiresArtifacts: boolean }> {
  const source = await resolveSide(access, policy, from);
  let pins = lockPins(source.lock);
  if (cookbook) {
    assertViewable(access, to, `There is no stage '${to}'`);
    const row = await db().groupPolicy.findFirst({ where: { group: { name: to }, policy: { name: policy } }, select: { revision: { select: { document: true } } } });
    const target = row ? (JSON.parse(row.revision.document) as PolicyLock) : null;
    const incoming = Object.prototype.hasOwnProperty.call(source.lock.cookbook_locks ?? {}, cookbook) ? source.lock.cookbook_locks[cookbook] : null;
    pins = Object.entries(target?.cookbook_locks ?? {})
      .filter(([name]) => name !== cookbook)
      .map(([name, cb]) => ({ name, identifier: cb.identifier }))
      .concat(incoming ? [{ name: cookbook, identifier: incoming.identifier }] : []);
  }
  const missing = await missingArtifacts(pins);
  const stage = await db().policyGroup.findUnique({ where: { name: to }, select: { requireArtifacts: true } });
  return { missing: missing.sort(), toRequiresArtifacts: !!stage?.requireArtifacts && can(access, 'stage.view', { stage: to }) };
}

export type FileStatus = 'added' | 'removed' | 'changed' | 'same';

export interface ArtifactDiff {
  name: string;
  from: { identifier: string; version: string | null; present: boolean };
  to: { identifier: string; version: string | null; present: boolean };
  files: { path: string; status: FileStatus }[];
  /** The selected changed file's two texts (null: binary, too large, or absent on that side). */
  selected: { path: string; fromText: string | null; toText: string | null } | null;
}

/** File-level diff between two artifacts of one cookbook (by path and checksum), and one file's texts. */
export async function artifactDiff(name: string, fromId: string, toId: string, file: string | null): Promise<ArtifactDiff> {
  const load = (identifier: string) => db().cookbookArtifact.findUnique({ where: { name_identifier: { name, identifier } }, select: { version: true, manifest: true } });
  const [a, b] = await Promise.all([load(fromId), load(toId)]);
  const filesOf = (row: { manifest: string } | null) => new Map(row ? manifestFiles(JSON.parse(row.manifest) as Record<string, unknown>).map((f) => [f.path, f.checksum]) : []);
  const fa = filesOf(a);
  const fb = filesOf(b);
  const paths = [...new Set([...fa.keys(), ...fb.keys()])].sort();
  const files = paths.map((path) => ({ path, status: (!fa.has(path) ? 'added' : !fb.has(path) ? 'removed' : fa.get(path) === fb.get(path) ? 'same' : 'changed') as FileStatus }));
  const order: FileStatus[] = ['changed', 'added', 'removed', 'same'];
  files.sort((x, y) => order.indexOf(x.status) - order.indexOf(y.status) || (x.path < y.path ? -1 : 1));
  const chosen = files.find((f) => f.path === file) ?? files.find((f) => f.status !== 'same');
  let selected: ArtifactDiff['selected'] = null;
  if (chosen) {
    const text = async (checksum: string | undefined) => {
      if (!checksum) return null;
      const size = (await fileSizes([checksum])).get(checksum);
      const buf = size !== undefined && size <= SHOW_LIMIT ? await readFile(checksum) : null;
      return !buf || buf.includes(0) ? null : buf.toString('utf8');
    };
    selected = { path: chosen.path, fromText: await text(fa.get(chosen.path)), toText: await text(fb.get(chosen.path)) };
  }
  return { name, from: { identifier: fromId, version: a?.version ?? null, present: !!a }, to: { identifier: toId, version: b?.version ?? null, present: !!b }, files, selected };
}
