/**
 * Issue 42: a way out. `npm run export -- --dir DIR` writes the console's organization as a `knife ec backup`
 * tree (chef/knife-ec-backup's layout, the chef_fs "hosted everything" repository per organization):
 *
 *   DIR/users/NAME.json             every user with a Chef name (GET /users/NAME at API v0: public_key included)
 *   DIR/user_acls/NAME.json         the user's ACL (pivotal and the user)
 *   DIR/key_dump.json               the users table (--with-user-sql): username, email, public_key, serialized_object
 *   DIR/key_table_dump.json         every key of users and clients (--with-key-sql: keys_by_name rows)
 *   DIR/organizations/ORG/
 *     org.json, members.json, invitations.json
 *     clients/NAME.json             name, validator, public_key (the default key)
 *     nodes/NAME.json               the node as stored, numbers as sent
 *     data_bags/BAG/ITEM.json       the item as stored
 *     policies/NAME-REVISION.json   the revision's stored bytes
 *     policy_groups/GROUP.json      { name, policies: { POLICY: { revision_id } } } (stages that run something)
 *     cookbook_artifacts/NAME-IDENTIFIER/…   every file of the artifact, by its path
 *     groups/NAME.json              admins, users, clients, billing-admins, public_key_read_access, and each
 *                                   console team as a custom group (chef-G as G)
 *     containers/NAME.json, acls/…  Chef's default container ACLs; each stage's, data bag's and policy's ACL
 *                                   from the console's grants and owners (the inverse of the import's mapping:
 *                                   a stage's ACL names the admins group and the teams with a level on it; a
 *                                   bag's, every member reading and the teams with write; a policy's, its owner)
 *
 * `npm run import -- --dir DIR` reads it back without a change, `knife upload` (chef_repo_path DIR/organizations/ORG)
 * restores it into a Chef server or chef-zero, and `npm run import -- --verify --dir DIR` checks a console
 * against it. Objects are read and written one at a time (a node, an item, a file), never the organization at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { readFile } from '@/lib/db/file-store/stored-files';
import { CHEF_PERMS, DEFAULT_CONTAINER_ACLS, parseLossless, serializeJson, type Acl, type ChefPerm } from '@/lib/domain';
import { nodeDocument } from '@/lib/services/nodes';
import { HOME_ORG_ID } from '@/lib/services/organizations';
import { audit, transaction } from '@/lib/services/funnel';

export interface ExportResult {
  dir: string;
  organization: string;
  counts: Record<string, number>;
  bytes: number;
}

const LEVEL_PERMS: Record<string, ChefPerm[]> = { view: ['read'], promote: ['create', 'read', 'update', 'delete'], manage: ['create', 'read', 'update', 'delete', 'grant'] };
const ace = (groups: string[]) => ({ actors: [] as string[], groups });
/** What the console's own rules give without a grant: its organization admins everything (a stage needs a grant to be seen). */
const ADMINS_ONLY: Acl = { create: ace(['admins']), read: ace(['admins']), update: ace(['admins']), delete: ace(['admins']), grant: ace(['admins']) };
/** Every member reads (a data bag no stage restricts, a policy); writes need a grant or ownership. */
const MEMBERS_READ: Acl = { ...ADMINS_ONLY, read: ace(['admins', 'users', 'clients']) };
const CONTAINERS = ['clients', 'containers', 'cookbooks', 'data', 'environments', 'groups', 'nodes', 'roles', 'sandboxes', 'policies', 'policy_groups', 'cookbook_artifacts'];

/** A console team as a Chef group name: chef-G was imported from group G. */
export function groupNameForTeam(team: string): string {
  return team.startsWith('chef-') ? team.slice(5) : team;
}

function pretty(value: unknown): string {
  return `${serializeJson(value, 2)}\n`;
}

/** An ACL: Chef's default for a container, with extra groups or actors per permission. */
type AclExtra = { group?: string; actor?: string; perms: ChefPerm[] };

function aclWith(base: Acl, extra: AclExtra[]): Record<ChefPerm, { actors: string[]; groups: string[] }> {
  const out = {} as Record<ChefPerm, { actors: string[]; groups: string[] }>;
  for (const p of CHEF_PERMS) {
    const actors = new Set(['pivotal', ...(base[p]?.actors ?? [])]);
    const groups = new Set(base[p]?.groups ?? []);
    for (const e of extra) {
      if (!e.perms.includes(p)) continue;
      if (e.group) groups.add(e.group);
      if (e.actor) actors.add(e.actor);
    }
    out[p] = { actors: [...actors].sort(), groups: [...groups].sort() };
  }
  return out;
}

export async function exportOrganization(access: Access, dir: string, opts: { onProgress?: (what: string, n: number) => void } = {}): Promise<ExportResult> {
  assertCan(access, 'admin.import');
  const root = path.resolve(dir);
  if (fs.existsSync(root) && fs.readdirSync(root).length) throw new Error(`${root} is not empty: export into a new or empty directory`);
  const home = await db().organization.findUniqueOrThrow({ where: { id: HOME_ORG_ID }, select: { name: true, fullName: true, id: true } });
  const org = path.join(root, 'organizations', home.name);
  const counts: Record<string, number> = {};
  let bytes = 0;
  const write = (rel: string, text: string | Buffer, base = org) => {
    const p = path.join(base, rel);
    if (!p.startsWith(base + path.sep)) throw new Error(`refusing to write outside the export: ${rel}`);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
    bytes += Buffer.byteLength(text);
  };
  const count = (what: string) => {
    counts[what] = (counts[what] ?? 0) + 1;
    opts.onProgress?.(what, counts[what]);
  };
  const safe = (name: string) => {
    if (!/^[A-Za-z0-9_.:@-]+$/.test(name) || name === '.' || name === '..') throw new Error(`a name that cannot be a file name: ${JSON.stringify(name)}`);
    return name;
  };

  // Users (server level) and the users table, then the keys table.
  const users = await db().user.findMany({ where: { chefName: { not: null }, active: true }, orderBy: { chefName: 'asc' }, select: { id: true, chefName: true, email: true, name: true, firstName: true, lastName: true, chefKeys: { select: { name: true, publicKey: true, expiresAt: true } } } });
  const keyRows: Record<string, unknown>[] = [];
  const userRows: Record<string, unknown>[] = [];
  for (const u of users) {
    const name = safe(u.chefName!);
    const [f, ...l] = u.name.split(' ');
    const defaultKey = u.chefKeys.find((k) => k.name === 'default')?.publicKey ?? null;
    const firstName = u.firstName ?? f;
    const lastName = u.lastName ?? l.join(' ');
    write(`users/${name}.json`, pretty({ username: name, email: u.email, display_name: u.name, first_name: firstName, last_name: lastName, public_key: defaultKey }), root);
    write(`user_acls/${name}.json`, pretty(aclWith({}, [{ actor: name, perms: [...CHEF_PERMS] }])), root);
    userRows.push({ username: name, email: u.email, public_key: defaultKey, pubkey_version: 0, serialized_object: JSON.stringify({ display_name: u.name, first_name: firstName, last_name: lastName }), admin: false, external_authentication_uid: null, recovery_authentication_enabled: false });
    for (const k of u.chefKeys) keyRows.push({ name, type: 'user', org_id: 'global', key_name: k.name, public_key: k.publicKey, key_version: 0, expires_at: k.expiresAt ? k.expiresAt.toISOString() : 'infinity', org_name: null });
    count('users');
  }
  write('key_dump.json', `${JSON.stringify(userRows, null, 2)}\n`, root);

  // The organization, its members and invitations.
  write('org.json', pretty({ name: home.name, full_name: home.fullName, guid: home.id.replace(/[^0-9a-f]/g, '').padEnd(32, '0').slice(0, 32) }));
  const members = await db().orgMember.findMany({ where: { orgId: HOME_ORG_ID }, select: { user: { select: { chefName: true } } } });
  const memberNames = members.flatMap((m) => (m.user.chefName ? [m.user.chefName] : [])).sort();
  write('members.json', pretty(memberNames.map((username) => ({ user: { username } }))));
  const invites = await db().associationRequest.findMany({ where: { orgId: HOME_ORG_ID }, select: { id: true, user: { select: { chefName: true } } } });
  write('invitations.json', pretty(invites.flatMap((i) => (i.user.chefName ? [{ id: i.id, username: i.user.chefName }] : []))));

  // Clients with their keys.
  const clients = await db().chefClient.findMany({ where: { orgId: HOME_ORG_ID }, orderBy: { name: 'asc' }, select: { name: true, validator: true, keys: { select: { name: true, publicKey: true, expiresAt: true } } } });
  for (const c of clients) {
    const name = safe(c.name);
    write(`clients/${name}.json`, pretty({ name, clientname: name, validator: c.validator, admin: false, chef_type: 'client', orgname: home.name, public_key: c.keys.find((k) => k.name === 'default')?.publicKey ?? null }));
    for (const k of c.keys) keyRows.push({ name, type: 'client', org_id: home.id, key_name: k.name, public_key: k.publicKey, key_version: 0, expires_at: k.expiresAt ? k.expiresAt.toISOString() : 'infinity', org_name: home.name });
    count('clients');
  }
  write('key_table_dump.json', `${JSON.stringify(keyRows, null, 2)}\n`, root);

  // Nodes, one at a time, as stored (numbers as sent).
  const nodeNames = await db().node.findMany({ orderBy: { name: 'asc' }, select: { name: true } });
  for (const { name } of nodeNames) {
    const row = await db().node.findUnique({ where: { name }, select: { name: true, groupId: true, policyId: true, chefDocument: true, reportedGroup: true, reportedPolicy: true, revisionApplied: true, platform: true, platformVersion: true, platformFamily: true, os: true, group: { select: { name: true } }, policy: { select: { name: true } } } });
    if (!row) continue;
    write(`nodes/${safe(name)}.json`, pretty(parseLossless(nodeDocument(row))));
    count('nodes');
  }

  // Data bags and items.
  const bags = await db().dataBag.findMany({ orderBy: { name: 'asc' }, select: { id: true, name: true, grants: { select: { level: true, team: { select: { name: true } } } } } });
  for (const bag of bags) {
    fs.mkdirSync(path.join(org, 'data_bags', safe(bag.name)), { recursive: true });
    const items = await db().dataBagItem.findMany({ where: { bagId: bag.id }, orderBy: { itemId: 'asc' }, select: { itemId: true } });
    for (const { itemId } of items) {
      const item = await db().dataBagItem.findUniqueOrThrow({ where: { bagId_itemId: { bagId: bag.id, itemId } }, select: { document: true } });
      write(`data_bags/${bag.name}/${safe(itemId)}.json`, pretty(parseLossless(item.document)));
      count('data bag items');
    }
    count('data bags');
  }

  // Policy revisions (bytes as stored) and the stages that run them.
  const revisions = await db().policyRevision.findMany({ orderBy: [{ policyId: 'asc' }, { revisionId: 'asc' }], select: { id: true } });
  for (const { id } of revisions) {
    const r = await db().policyRevision.findUniqueOrThrow({ where: { id }, select: { revisionId: true, document: true, policy: { select: { name: true } } } });
    write(`policies/${safe(r.policy.name)}-${safe(r.revisionId)}.json`, r.document);
    count('policy revisions');
  }
  const stages = await db().policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { name: true, policies: { select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } }, permissions: { select: { level: true, team: { select: { name: true } }, user: { select: { chefName: true } } } } } });
  for (const s of stages) {
    if (!s.policies.length) continue;
    const policies = Object.fromEntries(s.policies.map((p) => [p.policy.name, { revision_id: p.revision.revisionId }]).sort(([a], [b]) => (a < b ? -1 : 1)));
    write(`policy_groups/${safe(s.name)}.json`, pretty({ name: s.name, policies }));
    count('policy groups');
  }

  // Cookbook artifacts: every file by its path (the manifest is rebuilt from them, as knife does).
  const artifacts = await db().cookbookArtifact.findMany({ orderBy: [{ name: 'asc' }, { identifier: 'asc' }], select: { name: true, identifier: true, manifest: true } });
  for (const a of artifacts) {
    const manifest = JSON.parse(a.manifest) as { all_files?: { path?: string; checksum?: string }[] };
    const base = `cookbook_artifacts/${safe(a.name)}-${safe(a.identifier)}`;
    fs.mkdirSync(path.join(org, base), { recursive: true });
    for (const f of manifest.all_files ?? []) {
      if (!f.path || !f.checksum || f.path.split('/').some((part) => part === '..' || part === '' || part === '.')) throw new Error(`artifact ${a.name} ${a.identifier}: a file path that cannot be written: ${JSON.stringify(f.path)}`);
      // Issue 46: from whichever file store holds it.
      const file = await readFile(f.checksum);
      if (!file) throw new Error(`artifact ${a.name} ${a.identifier}: the console lacks file ${f.path} (${f.checksum})`);
      write(`${base}/${f.path}`, file);
    }
    count('cookbook artifacts');
  }

  // Groups: Chef's own, and each console team as a custom group.
  const admins = await db().chefGroupMember.findMany({ where: { group: { orgId: HOME_ORG_ID, name: 'admins' }, userId: { not: null } }, select: { user: { select: { chefName: true } } } });
  const teams = await db().team.findMany({ orderBy: { name: 'asc' }, select: { name: true, members: { select: { user: { select: { chefName: true } } } } } });
  const group = (name: string, users: string[], clientNames: string[] = [], groups: string[] = []) => write(`groups/${name}.json`, pretty({ name, groupname: name, orgname: home.name, users: [...new Set(users)].sort(), clients: clientNames, groups }));
  group('admins', ['pivotal', ...admins.flatMap((m) => (m.user?.chefName ? [m.user.chefName] : []))]);
  group('users', memberNames);
  group('clients', [], clients.filter((c) => !c.validator).map((c) => c.name));
  group('billing-admins', []);
  group('public_key_read_access', [], [], ['clients', 'users']);
  const builtIn = new Set(['admins', 'users', 'clients', 'billing-admins', 'public_key_read_access']);
  for (const t of teams) {
    const g = groupNameForTeam(t.name);
    if (builtIn.has(g) || !/^[a-z0-9_-]+$/.test(g)) continue;
    group(g, t.members.flatMap((m) => (m.user.chefName && memberNames.includes(m.user.chefName) ? [m.user.chefName] : [])));
    count('groups');
  }
  const teamGroup = (team: string) => {
    const g = groupNameForTeam(team);
    return builtIn.has(g) && g !== 'admins' && g !== 'users' ? null : g;
  };

  // Containers and ACLs: Chef's defaults, with each stage's, bag's and policy's grants.
  for (const c of CONTAINERS) {
    write(`containers/${c}.json`, pretty({ containername: c, containerpath: c }));
    const base = (DEFAULT_CONTAINER_ACLS as Record<string, Acl>)[c] ?? { create: { actors: [], groups: ['admins', 'users'] }, read: { actors: [], groups: ['admins', 'users'] }, update: { actors: [], groups: ['admins', 'users'] }, delete: { actors: [], groups: ['admins', 'users'] }, grant: { actors: [], groups: ['admins'] } };
    write(`acls/containers/${c}.json`, pretty(aclWith(base, [])));
  }
  write('acls/organization.json', pretty(aclWith({ read: { actors: [], groups: ['admins', 'users'] }, update: { actors: [], groups: ['admins'] }, grant: { actors: [], groups: ['admins'] }, create: { actors: [], groups: ['admins'] }, delete: { actors: [], groups: ['admins'] } }, [])));
  for (const s of stages) {
    if (!s.policies.length) continue;
    const extra = s.permissions.flatMap((p): AclExtra[] => {
      const perms = LEVEL_PERMS[p.level] ?? [];
      if (p.team) {
        const g = teamGroup(p.team.name);
        return g ? [{ group: g, perms }] : [];
      }
      return p.user?.chefName && memberNames.includes(p.user.chefName) ? [{ actor: p.user.chefName, perms }] : [];
    });
    write(`acls/policy_groups/${s.name}.json`, pretty(aclWith(ADMINS_ONLY, extra)));
  }
  for (const b of bags) {
    const extra = b.grants.flatMap((g) => {
      const name = teamGroup(g.team.name);
      return name ? [{ group: name, perms: g.level === 'write' ? (['create', 'read', 'update', 'delete'] as ChefPerm[]) : (['read'] as ChefPerm[]) }] : [];
    });
    write(`acls/data_bags/${b.name}.json`, pretty(aclWith(MEMBERS_READ, extra)));
  }
  const policies = await db().policy.findMany({ orderBy: { name: 'asc' }, select: { name: true, ownerTeam: { select: { name: true } } } });
  for (const p of policies) {
    const g = p.ownerTeam ? teamGroup(p.ownerTeam.name) : null;
    write(`acls/policies/${p.name}.json`, pretty(aclWith(MEMBERS_READ, g ? [{ group: g, perms: ['create', 'read', 'update', 'delete'] }] : [])));
  }

  await transaction((tx) => audit(tx, access, { action: 'export', targetType: 'organization', target: home.name, after: { dir: root, counts } }));
  return { dir: root, organization: home.name, counts, bytes };
}
