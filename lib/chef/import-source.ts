/**
 * Issue 27: a live Chef Infra Server (or chef-zero, or another console) as
 * an import source. Every request is signed with the project's Chef signing
 * code (lib/auth/chef-signing.ts, protocol 1.3) as the admin user given on the
 * command line. Answers of 5xx, 429 and timeouts are retried with backoff;
 * after the last attempt the object is reported (SourceError), never
 * silently dropped.
 *
 * The organization: `--server https://host --org acme` reads
 * https://host/organizations/acme/…; a URL that already names an
 * organization is used as it is; chef-zero in its default single-org mode
 * (no /organizations prefix) is recognised by its 404 there and its answer at
 * the root.
 */
import { createHash } from 'node:crypto';
import { manifestFiles } from '@/lib/domain/cookbook/manifest';
import { parseLossless } from '@/lib/domain';
import { maxDocumentBytes } from '@/lib/validation/limits';
import { signRequest } from '@/lib/auth/chef-signing';
import { aclFromJson, groupFromJson, SourceError, type Acl, type AclKind, type ImportSource, type SourceClient, type SourceFileRef, type SourceGroupInfo, type SourceKey, type SourceUser } from '@/lib/services/import';

/** Issue 41 (low): the most a list answer (every node's name and URL, …) may be; a document's is MAX_BODY_BYTES. */
export const DEFAULT_MAX_LIST_BYTES = 64 * 1024 * 1024;
/** An error answer is read for its first words only. */
const MAX_ERROR_BYTES = 64 * 1024;

export interface ChefServerSourceOptions {
  server: string;
  org: string;
  user: string;
  privateKey: string;
  /** Attempts per request (5xx, 429, timeouts, connection errors); default 4. */
  attempts?: number;
  /** Per-request time limit in ms; default 60 000. */
  timeoutMs?: number;
  /** First backoff in ms (doubled each attempt); default 250. */
  backoffMs?: number;
  /**
   * Issue 41 (low): origins (scheme://host:port) besides the server's own that cookbook file URLs may point at
   * (where the server keeps its files: bookshelf on another host, S3); a URL on any other is refused unread.
   */
  fileOrigins?: string[];
  /** The most a list answer may be, in bytes (default 64 MiB); a document may be MAX_BODY_BYTES (8 MiB). */
  maxListBytes?: number;
}

class HttpStatusError extends SourceError {
  constructor(
    where: string,
    readonly status: number,
    message: string,
  ) {
    super(where, message);
  }
}

const FILE_SEGMENTS = ['all_files', 'recipes', 'attributes', 'files', 'templates', 'libraries', 'definitions', 'resources', 'providers', 'root_files'];

export class ChefServerSource implements ImportSource {
  readonly label: string;
  private base: URL;
  private resolved: Promise<void> | null = null;
  private readonly attempts: number;
  private readonly timeoutMs: number;
  private readonly backoffMs: number;
  private readonly fileOrigins: Set<string>;
  private readonly maxListBytes: number;

  constructor(private readonly o: ChefServerSourceOptions) {
    const u = new URL(o.server);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SourceError(o.server, 'the server URL must be http or https');
    const path = u.pathname.replace(/\/+$/, '');
    this.base = new URL(/\/organizations\/[^/]+$/.test(path) ? `${u.origin}${path}` : `${u.origin}${path}/organizations/${encodeURIComponent(o.org)}`);
    this.label = `server ${this.base.href}`;
    this.attempts = Math.max(1, o.attempts ?? 4);
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.backoffMs = o.backoffMs ?? 250;
    this.maxListBytes = o.maxListBytes ?? DEFAULT_MAX_LIST_BYTES;
    this.fileOrigins = new Set(
      (o.fileOrigins ?? []).map((f) => {
        let url: URL;
        try {
          url = new URL(f);
        } catch {
          throw new SourceError(f, 'a file origin must be a URL such as https://files.example.com');
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceError(f, 'a file origin must be http or https');
        return url.origin;
      }),
    );
  }

  /** The organization URL: as given, or the server root when only that answers (chef-zero's single org). */
  private resolve(): Promise<void> {
    this.resolved ??= (async () => {
      try {
        await this.json('clients');
      } catch (e) {
        if (!(e instanceof HttpStatusError) || e.status !== 404) throw e;
        const root = new URL(this.o.server);
        const rootBase = new URL(`${root.origin}${root.pathname.replace(/\/+$/, '')}`);
        const saved = this.base;
        this.base = rootBase;
        try {
          await this.json('clients');
        } catch {
          this.base = saved;
          throw e;
        }
      }
    })();
    return this.resolved;
  }

  private url(rel: string): URL {
    return new URL(`${this.base.href.replace(/\/+$/, '')}/${rel}`);
  }

  /** One signed GET with retries; `absolute` for the file URLs a manifest gives (signed only on the server's own origin). */
  private async get(target: URL, apiVersion = '1', limit = maxDocumentBytes()): Promise<Buffer> {
    const where = target.href;
    let last: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      if (attempt > 1) await new Promise((r) => setTimeout(r, this.backoffMs * 2 ** (attempt - 2)));
      const headers: Record<string, string> = { accept: 'application/json', 'x-chef-version': '18.4.64' };
      if (target.origin === this.base.origin) Object.assign(headers, signRequest({ protocol: '1.3', method: 'GET', path: target.pathname, userId: this.o.user, privateKey: this.o.privateKey, apiVersion }));
      let res: Response;
      try {
        res = await fetch(target, { headers, signal: AbortSignal.timeout(this.timeoutMs), redirect: 'manual' });
      } catch (e) {
        last = new SourceError(where, `no answer (${(e as Error).name === 'TimeoutError' ? `timed out after ${this.timeoutMs} ms` : (e as Error).message}) after ${attempt} attempt${attempt > 1 ? 's' : ''}`);
        continue;
      }
      if (res.status >= 200 && res.status < 300) return readCapped(res, limit, where);
      const body = await readCapped(res, MAX_ERROR_BYTES, where).catch(() => Buffer.alloc(0));
      const text = body.toString('utf8').slice(0, 300);
      last = new HttpStatusError(where, res.status, `HTTP ${res.status}${text ? `: ${text}` : ''}${res.status >= 500 || res.status === 429 ? ` after ${attempt} attempt${attempt > 1 ? 's' : ''}` : ''}`);
      if (res.status < 500 && res.status !== 429) throw last;
    }
    throw last;
  }

  /** A document (at most MAX_BODY_BYTES) or, with `list`, a list answer (at most maxListBytes). */
  private async json<T>(rel: string, apiVersion = '1', opts: { list?: boolean; lossless?: boolean } = {}): Promise<T> {
    const target = this.url(rel);
    const body = await this.get(target, apiVersion, opts.list ? this.maxListBytes : maxDocumentBytes());
    try {
      const text = body.toString('utf8');
      return (opts.lossless ? parseLossless(text) : JSON.parse(text)) as T;
    } catch (e) {
      throw new SourceError(target.href, `not JSON: ${(e as Error).message}`);
    }
  }

  private list<T>(rel: string, apiVersion = '1'): Promise<T> {
    return this.json<T>(rel, apiVersion, { list: true });
  }

  private async text(rel: string): Promise<string> {
    return (await this.get(this.url(rel))).toString('utf8');
  }

  async policies() {
    await this.resolve();
    const list = await this.list<Record<string, { revisions?: Record<string, unknown> }>>('policies');
    return new Map(Object.entries(list).map(([name, p]) => [name, Object.keys(p?.revisions ?? {})]));
  }

  async policyRevision(name: string, revisionId: string) {
    return this.text(`policies/${encodeURIComponent(name)}/revisions/${encodeURIComponent(revisionId)}`);
  }

  async policyGroups() {
    await this.resolve();
    const list = await this.list<Record<string, { policies?: Record<string, { revision_id?: string }> }>>('policy_groups');
    return new Map(Object.entries(list).map(([g, body]) => [g, new Map(Object.entries(body?.policies ?? {}).flatMap(([p, r]) => (typeof r?.revision_id === 'string' ? [[p, r.revision_id] as const] : [])))]));
  }

  async cookbookArtifacts() {
    await this.resolve();
    const list = await this.list<Record<string, { versions?: { identifier: string }[] }>>('cookbook_artifacts?num_versions=all');
    return new Map(Object.entries(list).map(([name, c]) => [name, (c?.versions ?? []).map((v) => v.identifier)]));
  }

  async cookbookArtifact(name: string, identifier: string) {
    // API v2: the manifest lists `all_files` (what chef-client reads); a server that answers with v0 segments gets them folded into all_files.
    const m = await this.json<Record<string, unknown>>(`cookbook_artifacts/${encodeURIComponent(name)}/${encodeURIComponent(identifier)}`, '2');
    if (!Array.isArray(m.all_files)) {
      m.all_files = manifestFiles(m);
      for (const seg of FILE_SEGMENTS) if (seg !== 'all_files') delete m[seg];
    }
    const files: SourceFileRef[] = [];
    const seen = new Set<string>();
    const manifest: Record<string, unknown> = { ...m };
    for (const seg of FILE_SEGMENTS) {
      if (!Array.isArray(m[seg])) continue;
      manifest[seg] = (m[seg] as Record<string, unknown>[]).map((f) => {
        const { url, ...rest } = f ?? {};
        const checksum = String(rest.checksum ?? '');
        if (!seen.has(checksum)) {
          seen.add(checksum);
          files.push({ path: String(rest.path ?? rest.name ?? ''), checksum, url: typeof url === 'string' ? url : undefined });
        }
        return rest;
      });
    }
    return { manifest, files };
  }

  async cookbookFile(_name: string, _identifier: string, file: SourceFileRef) {
    const target = file.url ? new URL(file.url) : this.url(`file_store/checksums/${file.checksum}`);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new SourceError(target.href, 'file URLs must be http or https');
    // Issue 41 (low): a manifest's file URL is fetched only from the server's own origin or one given with --file-origin.
    if (target.origin !== this.base.origin && !this.fileOrigins.has(target.origin)) {
      throw new SourceError(target.href, `not on the source server's origin (${this.base.origin}): refused unread (add --file-origin ${target.origin} if the server keeps its cookbook files there)`);
    }
    // One file in memory per transfer, and at most the console's own file limit (what knife could upload to it).
    const bytes = await this.get(target, '1', maxDocumentBytes());
    const md5 = createHash('md5').update(bytes).digest('hex');
    if (md5 !== file.checksum) throw new SourceError(target.href, `checksum mismatch: the file's MD5 is ${md5}, the manifest says ${file.checksum}`);
    return bytes;
  }

  async dataBags() {
    await this.resolve();
    return Object.keys(await this.list<Record<string, string>>('data'));
  }

  async dataBagItems(bag: string) {
    return Object.keys(await this.list<Record<string, string>>(`data/${encodeURIComponent(bag)}`));
  }

  async dataBagItem(bag: string, id: string) {
    const text = await this.text(`data/${encodeURIComponent(bag)}/${encodeURIComponent(id)}`);
    // Chef Server wraps items it serves in nothing; chef-zero and Chef Server return the raw item.
    return text;
  }

  async nodes() {
    await this.resolve();
    return Object.keys(await this.list<Record<string, string>>('nodes'));
  }

  node(name: string) {
    return this.json<Record<string, unknown>>(`nodes/${encodeURIComponent(name)}`, '1', { lossless: true });
  }

  async clients() {
    await this.resolve();
    return Object.keys(await this.list<Record<string, string>>('clients'));
  }

  private async keys(owner: string): Promise<SourceKey[]> {
    const list = await this.json<{ name: string }[]>(`${owner}/keys`);
    const out: SourceKey[] = [];
    for (const k of list) {
      const key = await this.json<{ name: string; public_key: string; expiration_date?: string }>(`${owner}/keys/${encodeURIComponent(k.name)}`);
      out.push({ name: key.name, publicKey: key.public_key, expirationDate: !key.expiration_date || key.expiration_date === 'infinity' ? null : key.expiration_date });
    }
    return out;
  }

  async client(name: string): Promise<SourceClient> {
    const c = await this.json<{ name?: string; clientname?: string; validator?: boolean }>(`clients/${encodeURIComponent(name)}`);
    return { name, validator: c.validator === true, keys: await this.keys(`clients/${encodeURIComponent(name)}`) };
  }

  async users() {
    await this.resolve();
    const list = await this.list<unknown>('users');
    // Chef Server's org users: [{user: {username}}]; chef-zero's single org: {name: url}.
    if (Array.isArray(list)) return list.map((u) => String((u as { user?: { username?: string } }).user?.username ?? '')).filter(Boolean);
    return Object.keys(list as Record<string, unknown>);
  }

  async user(name: string): Promise<SourceUser> {
    // Users live at the server root in Chef Server (an org URL serves them too); API v0 shows the default key.
    const u = await this.json<{ username?: string; name?: string; email?: string; display_name?: string; first_name?: string; last_name?: string; public_key?: string }>(`users/${encodeURIComponent(name)}`, '0');
    let keys: SourceKey[];
    try {
      keys = await this.keys(`users/${encodeURIComponent(name)}`);
    } catch (e) {
      // chef-zero's single org answers 500 on /users/NAME/keys: its API v0 `public_key` is the user's default key.
      if (!u.public_key) throw e;
      keys = [{ name: 'default', publicKey: u.public_key, expirationDate: null }];
    }
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    return { username: name, email: u.email ?? null, displayName: u.display_name ?? name, firstName: str(u.first_name), lastName: str(u.last_name), keys };
  }

  /** GET /groups and each group (erchef: actors, users, clients, groups); null when the server has no groups endpoint. */
  async groups(): Promise<SourceGroupInfo[] | null> {
    await this.resolve();
    let names: string[];
    try {
      names = Object.keys(await this.list<Record<string, unknown>>('groups'));
    } catch (e) {
      if (e instanceof HttpStatusError && (e.status === 404 || e.status === 405)) return null;
      throw e;
    }
    const out: SourceGroupInfo[] = [];
    for (const g of names.sort()) out.push(groupFromJson(g, await this.json(`groups/${encodeURIComponent(g)}`)));
    return out;
  }

  /** GET …/_acl of a container or an object; null when the server does not give it (404, 403, 405). */
  async acl(kind: AclKind | 'containers', name: string): Promise<Acl | null> {
    await this.resolve();
    try {
      return aclFromJson(await this.json(`${kind}/${encodeURIComponent(name)}/_acl`));
    } catch (e) {
      if (e instanceof HttpStatusError && [403, 404, 405].includes(e.status)) return null;
      throw e;
    }
  }

  async notImported() {
    await this.resolve();
    const out: { kind: 'cookbooks' | 'roles' | 'environments'; names: string[] }[] = [];
    for (const kind of ['cookbooks', 'roles', 'environments'] as const) {
      try {
        let names = Object.keys(await this.list<Record<string, unknown>>(kind === 'cookbooks' ? 'cookbooks?num_versions=all' : kind));
        if (kind === 'environments') names = names.filter((n) => n !== '_default');
        out.push({ kind, names: names.sort() });
      } catch (e) {
        out.push({ kind, names: [`(could not list: ${(e as Error).message})`] });
      }
    }
    return out;
  }
}

/**
 * A 2xx body read chunk by chunk: more than `limit` bytes (declared or
 * received) is refused as soon as it is known, without holding the rest.
 */
async function readCapped(res: Response, limit: number, where: string): Promise<Buffer> {
  const which = limit === maxDocumentBytes() ? `the console's file limit of ${limit} bytes (MAX_BODY_BYTES, also the largest document)` : `the importer's limit of ${limit} bytes for this answer`;
  const tooBig = (what: string) => new SourceError(where, `${what}, more than ${which}: not imported`);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > limit) {
    await res.body?.cancel();
    throw tooBig(`${declared} bytes`);
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    size += r.value.length;
    if (size > limit) {
      await reader.cancel();
      throw tooBig(`over ${limit} bytes received`);
    }
    chunks.push(r.value);
  }
  return Buffer.concat(chunks, size);
}
