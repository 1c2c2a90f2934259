/**
 * Issue 27: where an import reads from. Two implementations: a live Chef
 * server (lib/chef/import-source.ts: it signs with lib/auth/chef-signing.ts, which
 * services may not import) and a directory written by
 * knife-ec-backup or `knife download` (directory-source.ts). The importer
 * (run-import.ts) sees only this interface, so both go through the same
 * comparisons and the same write funnels.
 *
 * Every method reads one object (or one list) so the importer holds one
 * object per worker in memory, never the organization. A source that cannot
 * give an object throws a SourceError naming where it looked (a URL or a file
 * path): the importer reports that object as skipped and goes on.
 */

import type { Acl, AclKind, SourceGroupInfo } from '@/lib/domain/import';

export type { Acl, AclKind, SourceGroupInfo } from '@/lib/domain/import';

/** A source object that could not be read: `where` is its URL or file path. */
export class SourceError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(`${where}: ${message}`);
    this.name = 'SourceError';
  }
}

/** A public key of a client or user, as Chef's keys endpoints show it. */
export interface SourceKey {
  name: string;
  publicKey: string;
  /** ISO date, or null for "infinity". */
  expirationDate: string | null;
}

export interface SourceClient {
  name: string;
  validator: boolean;
  keys: SourceKey[];
}

export interface SourceUser {
  username: string;
  email: string | null;
  displayName: string;
  /** Chef's first_name and last_name (issue 42: kept), null when the source has none. */
  firstName: string | null;
  lastName: string | null;
  keys: SourceKey[];
}

/** One file a cookbook artifact's manifest lists. */
export interface SourceFileRef {
  /** The manifest's path (e.g. recipes/default.rb). */
  path: string;
  checksum: string;
  /** Where the server said the bytes are (live servers only). */
  url?: string;
}

export interface ImportSource {
  /** e.g. "server https://chef.example.com/organizations/acme" or "dir /backups/chef". */
  readonly label: string;
  /** True when artifact manifests are rebuilt from files (a directory): then only the files are compared. */
  readonly rebuildsManifests?: boolean;
  /** Policy name → its revision ids. */
  policies(): Promise<Map<string, string[]>>;
  /** A revision's document as the source stores it (bytes kept). */
  policyRevision(name: string, revisionId: string): Promise<string>;
  /** Policy group → (policy → revision id). */
  policyGroups(): Promise<Map<string, Map<string, string>>>;
  /** Cookbook name → its artifact identifiers. */
  cookbookArtifacts(): Promise<Map<string, string[]>>;
  /** An artifact's manifest (without the servers' download URLs) and its files. */
  cookbookArtifact(name: string, identifier: string): Promise<{ manifest: Record<string, unknown>; files: SourceFileRef[] }>;
  /** One file's bytes. */
  cookbookFile(name: string, identifier: string, file: SourceFileRef): Promise<Buffer>;
  dataBags(): Promise<string[]>;
  dataBagItems(bag: string): Promise<string[]>;
  /** An item's document as the source has it (encrypted items stay encrypted). */
  dataBagItem(bag: string, id: string): Promise<string>;
  nodes(): Promise<string[]>;
  /** A node as the source has it, parsed losslessly (issue 42: numbers keep their lexemes, `1.0` stays `1.0`). */
  node(name: string): Promise<Record<string, unknown>>;
  clients(): Promise<string[]>;
  client(name: string): Promise<SourceClient>;
  users(): Promise<string[]>;
  user(name: string): Promise<SourceUser>;
  /**
   * Issue 23: the Chef names of the organization's members (knife-ec-backup's organizations/ORG/members.json),
   * or null when the source does not say (then every user it lists is taken as a member).
   */
  members?(): Promise<string[] | null>;
  /**
   * Issue 42: the organization's groups (knife-ec-backup's groups/NAME.json; a server's /groups), null when the
   * source does not say. Members as Chef names: users, clients, nested groups.
   */
  groups?(): Promise<SourceGroupInfo[] | null>;
  /**
   * Issue 42: an ACL (knife-ec-backup's acls/…; a server's …/_acl): of a container ('containers', 'policy_groups')
   * or an object ('policy_groups', 'G'), ('data', BAG), ('policies', P). Null when the source does not give it.
   */
  acl?(kind: AclKind | 'containers', name: string): Promise<Acl | null>;
  /** What the console does not import, listed in the report. */
  notImported(): Promise<{ kind: 'cookbooks' | 'roles' | 'environments'; names: string[] }[]>;
}

/** `name-<hex id>` (a knife download file or directory name) split at the last dash. */
export function splitNameId(base: string, idPattern: RegExp): { name: string; id: string } | null {
  const i = base.lastIndexOf('-');
  if (i <= 0) return null;
  const name = base.slice(0, i);
  const id = base.slice(i + 1);
  return idPattern.test(id) ? { name, id } : null;
}

/** Chef's group JSON (GET /groups/NAME, or knife-ec-backup's groups/NAME.json) as the importer reads it. */
export function groupFromJson(name: string, body: unknown): SourceGroupInfo {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  // erchef answers actors (users and clients together) beside users and clients; chef_fs writes users/clients.
  const actors = b.actors && !Array.isArray(b.actors) && typeof b.actors === 'object' ? (b.actors as Record<string, unknown>) : null;
  const users = [...list(b.users), ...list(actors?.users)];
  const clients = [...list(b.clients), ...list(actors?.clients)];
  if (Array.isArray(b.actors)) for (const a of list(b.actors)) if (!users.includes(a) && !clients.includes(a)) users.push(a);
  return { name: typeof b.groupname === 'string' ? b.groupname : typeof b.name === 'string' ? b.name : name, users: [...new Set(users)], clients: [...new Set(clients)], groups: [...new Set([...list(b.groups), ...list(actors?.groups)])] };
}

/** Chef's ACL JSON ({create: {actors, groups}, …}) as the importer reads it; null for anything else. */
export function aclFromJson(body: unknown): Acl | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const out: Acl = {};
  for (const p of ['create', 'read', 'update', 'delete', 'grant'] as const) {
    const ace = (body as Record<string, unknown>)[p] as { actors?: unknown; groups?: unknown } | undefined;
    if (!ace || typeof ace !== 'object') continue;
    const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    out[p] = { actors: list(ace.actors), groups: list(ace.groups) };
  }
  return Object.keys(out).length ? out : null;
}
