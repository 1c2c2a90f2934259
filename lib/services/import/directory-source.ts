/**
 * Issue 27: a directory as an import source, in the two layouts Chef's tools
 * write (chef/chef's knife chef_fs repository layout, which knife-ec-backup
 * reuses per organization):
 *
 *   knife download /            knife ec backup DIR
 *   ├─ policies/NAME-REV.json   ├─ users/NAME.json
 *   ├─ policy_groups/G.json     ├─ key_dump.json            (--with-key-sql; optional)
 *   ├─ cookbook_artifacts/      └─ organizations/ORG/
 *   │   └─ NAME-IDENTIFIER/…        └─ (the knife download layout)
 *   ├─ data_bags/BAG/ITEM.json
 *   ├─ nodes/NAME.json
 *   ├─ clients/NAME.json        (public_key, when the server showed it)
 *   ├─ members.json             (the organization's members: issue 23)
 *   ├─ users/NAME.json
 *   └─ cookbooks/ roles/ environments/   (listed as not imported)
 *
 * Files are read one object at a time; a file that is not JSON is reported
 * with its path (SourceError) and the rest of the tree is imported.
 * A cookbook artifact directory holds the cookbook's files, not its
 * manifest: the manifest is rebuilt from them (checksums computed here,
 * metadata from metadata.json, else the name, version and depends lines of
 * metadata.rb).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { maxDocumentBytes } from '@/lib/validation/limits';
import { SourceError, splitNameId, type ImportSource, type SourceClient, type SourceFileRef, type SourceKey, type SourceUser } from './source';

const REVISION_ID = /^[0-9a-f]{10,64}$/;
const IDENTIFIER = /^[0-9a-f]{40}$/;

function readJson<T = Record<string, unknown>>(file: string): T {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new SourceError(file, `cannot read: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new SourceError(file, `malformed JSON: ${(e as Error).message}`);
  }
}

function jsonNames(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

function subdirs(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/** Every file under `dir`, as paths relative to it with '/' separators. */
function walk(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...walk(dir, r));
    else if (d.isFile()) out.push(r);
  }
  return out;
}

const SEGMENT_DIRS = new Set(['recipes', 'attributes', 'files', 'templates', 'libraries', 'definitions', 'resources', 'providers']);

function md5File(file: string): string {
  const h = createHash('md5');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 16);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

/** metadata.rb's name, version and depends lines (what a manifest needs when there is no metadata.json). */
function metadataFromRb(text: string): Record<string, unknown> {
  const str = (key: string) => new RegExp(`^\\s*${key}\\s*\\(?\\s*['"]([^'"]+)['"]`, 'm').exec(text)?.[1];
  const dependencies: Record<string, string> = {};
  for (const m of text.matchAll(/^\s*depends\s*\(?\s*['"]([^'"]+)['"](?:\s*,\s*['"]([^'"]+)['"])?/gm)) dependencies[m[1]] = m[2] ?? '>= 0.0.0';
  return { name: str('name'), version: str('version') ?? '0.0.0', dependencies };
}

export class DirectorySource implements ImportSource {
  readonly label: string;
  readonly rebuildsManifests = true;
  private readonly org: string;
  private readonly usersDir: string;
  private readonly keyDump: string;

  constructor(root: string, org?: string) {
    const abs = path.resolve(root);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new SourceError(abs, 'not a directory');
    const orgsDir = path.join(abs, 'organizations');
    if (fs.existsSync(orgsDir)) {
      const orgs = subdirs(orgsDir);
      const chosen = org ?? (orgs.length === 1 ? orgs[0] : undefined);
      if (!chosen || !orgs.includes(chosen)) throw new SourceError(orgsDir, org ? `no organization '${org}' here (found: ${orgs.join(', ') || 'none'})` : `several organizations (${orgs.join(', ')}): name one with --org`);
      this.org = path.join(orgsDir, chosen);
    } else this.org = abs;
    this.usersDir = path.join(abs, 'users');
    this.keyDump = path.join(abs, 'key_dump.json');
    this.label = `dir ${abs}${this.org !== abs ? ` (organization ${path.basename(this.org)})` : ''}`;
  }

  private p(...parts: string[]) {
    return path.join(this.org, ...parts);
  }

  async policies() {
    const out = new Map<string, string[]>();
    for (const base of jsonNames(this.p('policies'))) {
      const s = splitNameId(base, REVISION_ID);
      if (!s) throw new SourceError(this.p('policies', `${base}.json`), 'not named NAME-REVISION_ID.json');
      out.set(s.name, [...(out.get(s.name) ?? []), s.id]);
    }
    return out;
  }

  async policyRevision(name: string, revisionId: string) {
    const file = this.p('policies', `${name}-${revisionId}.json`);
    const text = fs.readFileSync(file, 'utf8');
    try {
      JSON.parse(text);
    } catch (e) {
      throw new SourceError(file, `malformed JSON: ${(e as Error).message}`);
    }
    return text;
  }

  async policyGroups() {
    const out = new Map<string, Map<string, string>>();
    for (const g of jsonNames(this.p('policy_groups'))) {
      const body = readJson<{ policies?: Record<string, { revision_id?: string }> }>(this.p('policy_groups', `${g}.json`));
      out.set(g, new Map(Object.entries(body.policies ?? {}).flatMap(([p, r]) => (typeof r?.revision_id === 'string' ? [[p, r.revision_id] as const] : []))));
    }
    return out;
  }

  async cookbookArtifacts() {
    const out = new Map<string, string[]>();
    for (const base of subdirs(this.p('cookbook_artifacts'))) {
      const s = splitNameId(base, IDENTIFIER);
      if (s) out.set(s.name, [...(out.get(s.name) ?? []), s.id]);
    }
    return out;
  }

  async cookbookArtifact(name: string, identifier: string) {
    const dir = this.p('cookbook_artifacts', `${name}-${identifier}`);
    const all = walk(dir);
    const metadata = all.includes('metadata.json') ? readJson(path.join(dir, 'metadata.json')) : all.includes('metadata.rb') ? metadataFromRb(fs.readFileSync(path.join(dir, 'metadata.rb'), 'utf8')) : null;
    if (!metadata) throw new SourceError(dir, 'no metadata.json or metadata.rb');
    const version = String(metadata.version ?? '0.0.0');
    const files: SourceFileRef[] = [];
    const allFiles = all.map((rel) => {
      const checksum = md5File(path.join(dir, rel));
      files.push({ path: rel, checksum });
      const top = rel.split('/')[0];
      return { name: SEGMENT_DIRS.has(top) && rel.includes('/') ? rel : `root_files/${rel}`, path: rel, checksum, specificity: 'default' };
    });
    const manifest = { name, identifier, version, cookbook_name: name, 'frozen?': false, chef_type: 'cookbook_version', metadata: { ...metadata, name, version }, all_files: allFiles };
    return { manifest: manifest as Record<string, unknown>, files };
  }

  async cookbookFile(name: string, identifier: string, file: SourceFileRef) {
    const p = this.p('cookbook_artifacts', `${name}-${identifier}`, ...file.path.split('/'));
    // One file in memory per transfer, and at most the console's own file limit (what knife could upload to it).
    const size = fs.statSync(p).size;
    if (size > maxDocumentBytes()) throw new SourceError(p, `${size} bytes, more than the console's file limit of ${maxDocumentBytes()} bytes (MAX_BODY_BYTES): not imported`);
    const bytes = fs.readFileSync(p);
    const md5 = createHash('md5').update(bytes).digest('hex');
    if (md5 !== file.checksum) throw new SourceError(p, `checksum changed while importing (now ${md5}, was ${file.checksum})`);
    return bytes;
  }

  async dataBags() {
    return subdirs(this.p('data_bags'));
  }

  async dataBagItems(bag: string) {
    return jsonNames(this.p('data_bags', bag));
  }

  async dataBagItem(bag: string, id: string) {
    const file = this.p('data_bags', bag, `${id}.json`);
    readJson(file);
    return fs.readFileSync(file, 'utf8');
  }

  async nodes() {
    return jsonNames(this.p('nodes'));
  }

  async node(name: string) {
    return readJson(this.p('nodes', `${name}.json`));
  }

  async clients() {
    return jsonNames(this.p('clients'));
  }

  /** key_dump.json (knife ec backup --with-key-sql): rows naming their owner and key. Read per lookup, optional. */
  private dumpedKeys(kind: 'client' | 'user', owner: string): SourceKey[] {
    if (!fs.existsSync(this.keyDump)) return [];
    const rows = readJson<unknown[]>(this.keyDump);
    if (!Array.isArray(rows)) return [];
    return rows.flatMap((r) => {
      const o = (r ?? {}) as Record<string, unknown>;
      const who = o.name ?? o.username ?? o.clientname;
      const type = o.type ?? (o.org_id && o.org_id !== '00000000000000000000000000000000' ? 'client' : 'user');
      if (who !== owner || typeof o.public_key !== 'string' || (type !== kind && type !== undefined)) return [];
      const exp = typeof o.expires_at === 'string' && !o.expires_at.startsWith('infinity') ? o.expires_at : null;
      return [{ name: String(o.key_name ?? 'default'), publicKey: o.public_key, expirationDate: exp }];
    });
  }

  async client(name: string): Promise<SourceClient> {
    const c = readJson<{ validator?: boolean; public_key?: string }>(this.p('clients', `${name}.json`));
    const keys = this.dumpedKeys('client', name);
    if (!keys.length && typeof c.public_key === 'string') keys.push({ name: 'default', publicKey: c.public_key, expirationDate: null });
    return { name, validator: c.validator === true, keys };
  }

  async users() {
    const fromOrg = jsonNames(this.p('users'));
    const top = this.usersDir !== this.p('users') ? jsonNames(this.usersDir) : [];
    return [...new Set([...fromOrg, ...top])].sort();
  }

  async user(name: string): Promise<SourceUser> {
    const file = fs.existsSync(this.p('users', `${name}.json`)) ? this.p('users', `${name}.json`) : path.join(this.usersDir, `${name}.json`);
    const u = readJson<{ email?: string; display_name?: string; public_key?: string }>(file);
    const keys = this.dumpedKeys('user', name);
    if (!keys.length && typeof u.public_key === 'string') keys.push({ name: 'default', publicKey: u.public_key, expirationDate: null });
    return { username: name, email: u.email ?? null, displayName: u.display_name ?? name, keys };
  }

  /**
   * knife-ec-backup's (and knife download's) organizations/ORG/members.json: `[{"user": {"username": U}}]`,
   * or plain names (chef_fs's OrganizationMembersDataHandler reads both); null when the file is absent.
   */
  async members(): Promise<string[] | null> {
    const file = this.p('members.json');
    if (!fs.existsSync(file)) return null;
    const list = readJson<unknown>(file);
    if (!Array.isArray(list)) throw new SourceError(file, 'not a JSON array of members');
    const names = list.map((m) => (typeof m === 'string' ? m : (m as { user?: { username?: unknown } } | null)?.user?.username));
    if (names.some((n) => typeof n !== 'string' || !n)) throw new SourceError(file, 'every member must be a user name or {"user": {"username": NAME}}');
    return [...new Set(names as string[])].sort();
  }

  async notImported() {
    return [
      { kind: 'cookbooks' as const, names: subdirs(this.p('cookbooks')) },
      { kind: 'roles' as const, names: jsonNames(this.p('roles')) },
      { kind: 'environments' as const, names: jsonNames(this.p('environments')).filter((n) => n !== '_default') },
    ];
  }
}
