/**
 * Issue 27: a directory as an import source, in the two layouts Chef's tools
 * write (chef/chef's knife chef_fs repository layout, which knife-ec-backup
 * reuses per organization):
 *
 *   knife download /            knife ec backup DIR
 *   ├─ policies/NAME-REV.json   ├─ users/NAME.json
 *   ├─ policy_groups/G.json     ├─ user_acls/NAME.json
 *   ├─ cookbook_artifacts/      ├─ key_dump.json            (--with-user-sql / --with-key-sql: the users table)
 *   │   └─ NAME-IDENTIFIER/…    ├─ key_table_dump.json      (--with-key-sql: every key of users and clients)
 *   ├─ data_bags/BAG/ITEM.json  └─ organizations/ORG/
 *   ├─ nodes/NAME.json              ├─ org.json, invitations.json
 *   ├─ clients/NAME.json            └─ (the knife download layout, with groups/ and acls/)
 *   ├─ members.json             (the organization's members: issue 23)
 *   ├─ groups/NAME.json         (issue 42: the rights mapping)
 *   ├─ acls/{containers,policy_groups,data_bags,policies}/NAME.json
 *   ├─ users/NAME.json
 *   └─ cookbooks/ roles/ environments/   (listed as not imported)
 *
 * Issue 41: a symbolic link anywhere in the tree, or a path leading out of it, is refused (Tree below).
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
import { parseLossless } from '@/lib/domain';
import { maxDocumentBytes } from '@/lib/validation/limits';
import { aclFromJson, groupFromJson, SourceError, splitNameId, type Acl, type AclKind, type ImportSource, type SourceClient, type SourceFileRef, type SourceGroupInfo, type SourceKey, type SourceUser } from './source';

const REVISION_ID = /^[0-9a-f]{10,64}$/;
const IDENTIFIER = /^[0-9a-f]{40}$/;
/** key_dump.json / key_table_dump.json hold every user's or key's row: larger than one document may be. */
const MAX_DUMP_BYTES = 512 * 1024 * 1024;

/**
 * Issue 41 (low): the tree is read as a tree. Every file is opened without following a symbolic link
 * (O_NOFOLLOW) after checking that its directory, resolved, is inside the root; a link anywhere below the
 * root (a file or a directory) is refused with its path, so no file outside the tree can become a node, an item
 * or a cookbook file.
 */
class Tree {
  readonly root: string;
  constructor(dir: string) {
    const abs = path.resolve(dir);
    let real: string;
    try {
      real = fs.realpathSync(abs);
    } catch (e) {
      throw new SourceError(abs, `not a directory (${(e as Error).message})`);
    }
    if (!fs.statSync(real).isDirectory()) throw new SourceError(abs, 'not a directory');
    this.root = real;
  }

  /** An absolute path below the root (refused when `..` or an absolute part would leave it). */
  inside(p: string): string {
    const abs = path.resolve(p);
    if (abs !== this.root && !abs.startsWith(this.root + path.sep)) throw new SourceError(abs, `outside the directory being imported (${this.root}): refused`);
    return abs;
  }

  /** Refuses a path whose directories, followed, lead out of the tree or through a link. */
  private checkDirs(abs: string): void {
    let dir = path.dirname(abs);
    while (dir !== this.root && dir.startsWith(this.root + path.sep)) {
      const st = fs.lstatSync(dir, { throwIfNoEntry: false });
      if (st?.isSymbolicLink()) throw new SourceError(dir, 'a symbolic link: refused (an import reads only the files inside the tree)');
      dir = path.dirname(dir);
    }
  }

  exists(p: string): boolean {
    const abs = this.inside(p);
    return fs.lstatSync(abs, { throwIfNoEntry: false }) !== undefined;
  }

  /** A regular file's bytes (a link refused), at most `limit` bytes. */
  read(p: string, limit = maxDocumentBytes()): Buffer {
    const abs = this.inside(p);
    this.checkDirs(abs);
    let fd: number;
    try {
      fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) throw new SourceError(abs, 'a symbolic link: refused (an import reads only the files inside the tree)');
      throw new SourceError(abs, `cannot read: ${(e as Error).message}`);
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new SourceError(abs, 'not a regular file: refused');
      if (st.size > limit) throw new SourceError(abs, `${st.size} bytes, more than the console's file limit of ${limit} bytes (MAX_BODY_BYTES): not imported`);
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  text(p: string, limit?: number): string {
    return this.read(p, limit).toString('utf8');
  }

  json<T = Record<string, unknown>>(p: string, limit?: number): T {
    const text = this.text(p, limit);
    try {
      return JSON.parse(text) as T;
    } catch (e) {
      throw new SourceError(p, `malformed JSON: ${(e as Error).message}`);
    }
  }

  /** A directory's entries (links included, so that reading them is refused and reported, never skipped silently). */
  entries(p: string): fs.Dirent[] {
    const abs = this.inside(p);
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (!st) return [];
    if (st.isSymbolicLink()) throw new SourceError(abs, 'a symbolic link: refused (an import reads only the files inside the tree)');
    if (!st.isDirectory()) return [];
    this.checkDirs(abs);
    return fs.readdirSync(abs, { withFileTypes: true });
  }

  jsonNames(p: string): string[] {
    return this.entries(p)
      .filter((d) => d.name.endsWith('.json') && (d.isFile() || d.isSymbolicLink()))
      .map((d) => d.name.slice(0, -5))
      .sort();
  }

  subdirs(p: string): string[] {
    return this.entries(p)
      .filter((d) => d.isDirectory() || d.isSymbolicLink())
      .map((d) => d.name)
      .sort();
  }

  /** Every file under `dir`, as paths relative to it with '/' separators; a link anywhere is refused. */
  walk(dir: string, rel = ''): string[] {
    const out: string[] = [];
    for (const d of this.entries(path.join(dir, rel)).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isSymbolicLink()) throw new SourceError(path.join(dir, r), 'a symbolic link: refused (an import reads only the files inside the tree)');
      if (d.isDirectory()) out.push(...this.walk(dir, r));
      else if (d.isFile()) out.push(r);
    }
    return out;
  }
}

const SEGMENT_DIRS = new Set(['recipes', 'attributes', 'files', 'templates', 'libraries', 'definitions', 'resources', 'providers']);

/** metadata.rb's name, version and depends lines (what a manifest needs when there is no metadata.json). */
function metadataFromRb(text: string): Record<string, unknown> {
  const str = (key: string) => new RegExp(`^\\s*${key}\\s*\\(?\\s*['"]([^'"]+)['"]`, 'm').exec(text)?.[1];
  const dependencies: Record<string, string> = {};
  for (const m of text.matchAll(/^\s*depends\s*\(?\s*['"]([^'"]+)['"](?:\s*,\s*['"]([^'"]+)['"])?/gm)) dependencies[m[1]] = m[2] ?? '>= 0.0.0';
  return { name: str('name'), version: str('version') ?? '0.0.0', dependencies };
}

/** A key_table_dump.json / key_dump.json row, as far as the importer reads it. */
interface DumpRow {
  kind: 'user' | 'client';
  key: SourceKey;
}

export class DirectorySource implements ImportSource {
  readonly label: string;
  readonly rebuildsManifests = true;
  private readonly tree: Tree;
  private readonly org: string;
  private readonly usersDir: string;
  private keys: Map<string, DumpRow[]> | null = null;
  private userRows: Map<string, Record<string, unknown>> | null = null;

  constructor(root: string, org?: string) {
    this.tree = new Tree(root);
    const abs = this.tree.root;
    const orgsDir = path.join(abs, 'organizations');
    if (this.tree.exists(orgsDir)) {
      const orgs = this.tree.subdirs(orgsDir);
      const chosen = org ?? (orgs.length === 1 ? orgs[0] : undefined);
      if (!chosen || !orgs.includes(chosen)) throw new SourceError(orgsDir, org ? `no organization '${org}' here (found: ${orgs.join(', ') || 'none'})` : `several organizations (${orgs.join(', ')}): name one with --org`);
      this.org = path.join(orgsDir, chosen);
    } else this.org = abs;
    this.usersDir = path.join(abs, 'users');
    this.label = `dir ${abs}${this.org !== abs ? ` (organization ${path.basename(this.org)})` : ''}`;
  }

  private p(...parts: string[]) {
    return this.tree.inside(path.join(this.org, ...parts));
  }

  async policies() {
    const out = new Map<string, string[]>();
    for (const base of this.tree.jsonNames(this.p('policies'))) {
      const s = splitNameId(base, REVISION_ID);
      if (!s) throw new SourceError(this.p('policies', `${base}.json`), 'not named NAME-REVISION_ID.json');
      out.set(s.name, [...(out.get(s.name) ?? []), s.id]);
    }
    return out;
  }

  async policyRevision(name: string, revisionId: string) {
    const file = this.p('policies', `${name}-${revisionId}.json`);
    const text = this.tree.text(file);
    try {
      JSON.parse(text);
    } catch (e) {
      throw new SourceError(file, `malformed JSON: ${(e as Error).message}`);
    }
    return text;
  }

  async policyGroups() {
    const out = new Map<string, Map<string, string>>();
    for (const g of this.tree.jsonNames(this.p('policy_groups'))) {
      const body = this.tree.json<{ policies?: Record<string, { revision_id?: string }> }>(this.p('policy_groups', `${g}.json`));
      out.set(g, new Map(Object.entries(body.policies ?? {}).flatMap(([p, r]) => (typeof r?.revision_id === 'string' ? [[p, r.revision_id] as const] : []))));
    }
    return out;
  }

  async cookbookArtifacts() {
    const out = new Map<string, string[]>();
    for (const base of this.tree.subdirs(this.p('cookbook_artifacts'))) {
      const s = splitNameId(base, IDENTIFIER);
      if (s) out.set(s.name, [...(out.get(s.name) ?? []), s.id]);
    }
    return out;
  }

  async cookbookArtifact(name: string, identifier: string) {
    const dir = this.p('cookbook_artifacts', `${name}-${identifier}`);
    const all = this.tree.walk(dir);
    const metadata = all.includes('metadata.json') ? this.tree.json(path.join(dir, 'metadata.json')) : all.includes('metadata.rb') ? metadataFromRb(this.tree.text(path.join(dir, 'metadata.rb'))) : null;
    if (!metadata) throw new SourceError(dir, 'no metadata.json or metadata.rb');
    const version = String(metadata.version ?? '0.0.0');
    const files: SourceFileRef[] = [];
    const allFiles = all.map((rel) => {
      const checksum = createHash('md5').update(this.tree.read(path.join(dir, rel))).digest('hex');
      files.push({ path: rel, checksum });
      const top = rel.split('/')[0];
      return { name: SEGMENT_DIRS.has(top) && rel.includes('/') ? rel : `root_files/${rel}`, path: rel, checksum, specificity: 'default' };
    });
    const manifest = { name, identifier, version, cookbook_name: name, 'frozen?': false, chef_type: 'cookbook_version', metadata: { ...metadata, name, version }, all_files: allFiles };
    return { manifest: manifest as Record<string, unknown>, files };
  }

  async cookbookFile(name: string, identifier: string, file: SourceFileRef) {
    // One file in memory per transfer, and at most the console's own file limit (what knife could upload to it).
    const p = this.p('cookbook_artifacts', `${name}-${identifier}`, ...file.path.split('/'));
    const bytes = this.tree.read(p);
    const md5 = createHash('md5').update(bytes).digest('hex');
    if (md5 !== file.checksum) throw new SourceError(p, `checksum changed while importing (now ${md5}, was ${file.checksum})`);
    return bytes;
  }

  async dataBags() {
    return this.tree.subdirs(this.p('data_bags'));
  }

  async dataBagItems(bag: string) {
    return this.tree.jsonNames(this.p('data_bags', bag));
  }

  async dataBagItem(bag: string, id: string) {
    const file = this.p('data_bags', bag, `${id}.json`);
    this.tree.json(file);
    return this.tree.text(file);
  }

  async nodes() {
    return this.tree.jsonNames(this.p('nodes'));
  }

  async node(name: string) {
    const file = this.p('nodes', `${name}.json`);
    const text = this.tree.text(file);
    try {
      return parseLossless(text) as Record<string, unknown>;
    } catch (e) {
      throw new SourceError(file, `malformed JSON: ${(e as Error).message}`);
    }
  }

  async clients() {
    return this.tree.jsonNames(this.p('clients'));
  }

  /**
   * knife ec backup --with-key-sql writes key_table_dump.json (the keys_by_name view: one row per key of a
   * user or client: name, type, key_name, public_key, expires_at, org_name) and key_dump.json (the users table:
   * username, public_key, serialized_object with first_name and last_name). Read once, by owner.
   */
  private dumpedKeys(kind: 'client' | 'user', owner: string): SourceKey[] {
    if (!this.keys) {
      this.keys = new Map();
      const org = path.basename(this.org);
      const add = (who: string, row: DumpRow) => this.keys!.set(`${row.kind}:${who}`, [...(this.keys!.get(`${row.kind}:${who}`) ?? []), row]);
      const table = path.join(this.tree.root, 'key_table_dump.json');
      if (this.tree.exists(table)) {
        for (const r of this.dumpRows(table)) {
          const type = r.type === 'client' ? 'client' : r.type === 'user' ? 'user' : null;
          if (!type || typeof r.name !== 'string' || typeof r.public_key !== 'string') continue;
          // Clients are per organization: another organization's client of the same name is not this one.
          if (type === 'client' && typeof r.org_name === 'string' && r.org_name !== org && this.org !== this.tree.root) continue;
          add(r.name, { kind: type, key: { name: String(r.key_name ?? 'default'), publicKey: r.public_key, expirationDate: expiry(r.expires_at) } });
        }
      }
      // The users table's public_key is each user's default key (what older backups have only).
      for (const [who, r] of this.users_()) {
        if (typeof r.public_key === 'string' && !(this.keys.get(`user:${who}`) ?? []).some((k) => k.key.name === 'default')) add(who, { kind: 'user', key: { name: 'default', publicKey: r.public_key, expirationDate: null } });
      }
    }
    return (this.keys.get(`${kind}:${owner}`) ?? []).map((r) => r.key);
  }

  private dumpRows(file: string): Record<string, unknown>[] {
    const rows = this.tree.json<unknown>(file, MAX_DUMP_BYTES);
    if (!Array.isArray(rows)) throw new SourceError(file, 'not a JSON array of rows');
    return rows.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object');
  }

  /** key_dump.json's rows by user name (the users table). */
  private users_(): Map<string, Record<string, unknown>> {
    if (!this.userRows) {
      this.userRows = new Map();
      const file = path.join(this.tree.root, 'key_dump.json');
      if (this.tree.exists(file)) for (const r of this.dumpRows(file)) if (typeof r.username === 'string') this.userRows.set(r.username, r);
    }
    return this.userRows;
  }

  async client(name: string): Promise<SourceClient> {
    const c = this.tree.json<{ validator?: boolean; public_key?: string }>(this.p('clients', `${name}.json`));
    const keys = this.dumpedKeys('client', name);
    if (!keys.length && typeof c.public_key === 'string') keys.push({ name: 'default', publicKey: c.public_key, expirationDate: null });
    return { name, validator: c.validator === true, keys };
  }

  async users() {
    const fromOrg = this.tree.jsonNames(this.p('users'));
    const top = this.usersDir !== this.p('users') ? this.tree.jsonNames(this.usersDir) : [];
    return [...new Set([...fromOrg, ...top])].sort();
  }

  async user(name: string): Promise<SourceUser> {
    const file = this.tree.exists(this.p('users', `${name}.json`)) ? this.p('users', `${name}.json`) : this.tree.inside(path.join(this.usersDir, `${name}.json`));
    const u = this.tree.json<Record<string, unknown>>(file);
    const keys = this.dumpedKeys('user', name);
    if (!keys.length && typeof u.public_key === 'string') keys.push({ name: 'default', publicKey: u.public_key, expirationDate: null });
    // The users table keeps first and last names in serialized_object (a JSON text).
    let serialized: Record<string, unknown> = {};
    const row = this.users_().get(name);
    if (typeof row?.serialized_object === 'string') {
      try {
        serialized = JSON.parse(row.serialized_object) as Record<string, unknown>;
      } catch {
        serialized = {};
      }
    }
    const str = (...v: unknown[]) => (v.find((x) => typeof x === 'string' && x !== '') as string | undefined) ?? null;
    return {
      username: name,
      email: str(u.email, row?.email),
      displayName: str(u.display_name, serialized.display_name) ?? name,
      firstName: str(u.first_name, serialized.first_name),
      lastName: str(u.last_name, serialized.last_name),
      keys,
    };
  }

  /**
   * knife-ec-backup's (and knife download's) organizations/ORG/members.json: `[{"user": {"username": U}}]`,
   * or plain names (chef_fs's OrganizationMembersDataHandler reads both); null when the file is absent.
   */
  async members(): Promise<string[] | null> {
    const file = this.p('members.json');
    if (!this.tree.exists(file)) return null;
    const list = this.tree.json<unknown>(file);
    if (!Array.isArray(list)) throw new SourceError(file, 'not a JSON array of members');
    const names = list.map((m) => (typeof m === 'string' ? m : (m as { user?: { username?: unknown } } | null)?.user?.username));
    if (names.some((n) => typeof n !== 'string' || !n)) throw new SourceError(file, 'every member must be a user name or {"user": {"username": NAME}}');
    return [...new Set(names as string[])].sort();
  }

  /** groups/NAME.json (chef_fs: name, users, clients, groups), null when the tree has no groups directory. */
  async groups(): Promise<SourceGroupInfo[] | null> {
    const dir = this.p('groups');
    if (!this.tree.exists(dir)) return null;
    return this.tree.jsonNames(dir).map((g) => groupFromJson(g, this.tree.json(this.p('groups', `${g}.json`))));
  }

  /** acls/containers/NAME.json, acls/policy_groups/G.json, acls/data_bags/BAG.json, acls/policies/P.json. */
  async acl(kind: AclKind | 'containers', name: string): Promise<Acl | null> {
    const dir = kind === 'data' ? 'data_bags' : kind;
    const file = this.p('acls', dir, `${name}.json`);
    if (!this.tree.exists(file)) return null;
    return aclFromJson(this.tree.json(file));
  }

  async notImported() {
    return [
      { kind: 'cookbooks' as const, names: this.tree.subdirs(this.p('cookbooks')) },
      { kind: 'roles' as const, names: this.tree.jsonNames(this.p('roles')) },
      { kind: 'environments' as const, names: this.tree.jsonNames(this.p('environments')).filter((n) => n !== '_default') },
    ];
  }
}

/** A dump's expires_at: null for "infinity" (and absent), else the ISO time. */
function expiry(v: unknown): string | null {
  if (typeof v !== 'string' || v.startsWith('infinity')) return null;
  const t = Date.parse(v.includes('T') || v.endsWith('Z') ? v : `${v.replace(' ', 'T')}Z`);
  if (Number.isNaN(t) || t > Date.UTC(9000, 0, 1)) return null;
  return new Date(t).toISOString();
}
