/**
 * Issue 42: what imported people may do in the console, from what Chef let them do. Pure: the groups and ACLs
 * come in (from the source), a plan comes out (teams, their members, stage grants, data bag grants, policy
 * owners, the organization's admins), and the service applies it (lib/services/import/rights.ts).
 *
 * Chef's model (erchef's oc_chef_authz_org_creator, the ACLs a new organization gets):
 * - the `admins` group: every permission (create, read, update, delete, grant) on every container and object;
 * - the `users` group (every member): create, read, update and delete on nodes, policies, policy groups,
 *   cookbook artifacts, data, roles, environments and cookbooks; read and delete on clients; read on groups;
 * - the `clients` group: read on those, create on nodes;
 * - an object's ACL starts as its container's; custom groups get what ACLs name them in.
 *
 * The mapping (`--rights chef`, the default):
 * - each Chef group with people in it (members of nested groups included) becomes a console team:
 *   `admins` → `chef-admins`, `users` → `chef-users` (every member), a custom group G → `chef-G`;
 * - a team's level on a stage is its group's permissions on that policy group: grant → manage,
 *   create / update / delete → promote, read → view (the policy group's own ACL when the source has it,
 *   else the policy_groups container's, else Chef's default above); users named in an ACL directly get a grant
 *   of their own;
 * - data bags: update / create / delete / grant → a `write` grant of the team on the bag (read needs no grant:
 *   every member reads a bag no stage restricts);
 * - each imported policy without an owner is owned by the first team whose group may update it
 *   (`chef-users` by Chef's default, then `chef-admins`, then custom teams by name);
 * - the `admins` group's people are the organization's admins (the console's `admins` Chef group: clients,
 *   groups, invitations);
 * - nobody becomes a console administrator: Chef's superuser and server-admins are server-wide, not part of an
 *   organization; make administrators with `npm run admin:create` or Admin → Users.
 * `--rights view`: the same teams, every level capped at view; no bag grants, owners or org admins.
 * `--rights none`: accounts and keys only.
 * What a console guard decides stays the guard's: a protected stage still asks for approvals, a frozen one
 * still refuses, whatever level a team has.
 */
/** A console stage level (lib/auth/permissions.ts' StageLevel; the domain imports nothing above it). */
export type StageLevel = 'view' | 'promote' | 'manage';

export type RightsMode = 'chef' | 'view' | 'none';
export const CHEF_PERMS = ['create', 'read', 'update', 'delete', 'grant'] as const;
export type ChefPerm = (typeof CHEF_PERMS)[number];
export interface Ace {
  actors: string[];
  groups: string[];
}
export type Acl = Partial<Record<ChefPerm, Ace>>;
export type AclKind = 'policy_groups' | 'data' | 'policies';

export interface SourceGroupInfo {
  name: string;
  users: string[];
  clients: string[];
  groups: string[];
}

export interface RightsInput {
  mode: RightsMode;
  /** The source's groups, or null when it gives none (then Chef's default groups: admins unknown, users = members). */
  groups: SourceGroupInfo[] | null;
  /** The organization's members (Chef names): the `users` group. */
  members: string[];
  stages: string[];
  bags: string[];
  policies: string[];
  /** An object's ACL as the source gives it (null: not given). */
  acl(kind: AclKind, name: string): Acl | null;
  /** A container's ACL as the source gives it (null: not given). */
  containerAcl(kind: AclKind): Acl | null;
}

export interface PlannedTeam {
  /** The console team. */
  team: string;
  /** The Chef group it stands for. */
  group: string;
  /** Chef user names, nested groups' included. */
  members: string[];
}

export interface RightsPlan {
  mode: RightsMode;
  teams: PlannedTeam[];
  /** Chef user names of the organization's admins. */
  orgAdmins: string[];
  stageGrants: { subject: { team: string } | { user: string }; stage: string; level: StageLevel; from: string }[];
  bagGrants: { team: string; bag: string; level: 'write' }[];
  policyOwners: { policy: string; team: string }[];
  /** What the mapping leaves out, in words (clients in groups, groups without people). */
  notes: string[];
}

/** Chef's default ACLs of the containers the console maps (oc_chef_authz_org_creator). */
export const DEFAULT_CONTAINER_ACLS: Record<AclKind, Acl> = {
  policy_groups: defaults(['clients']),
  data: defaults(['clients']),
  policies: defaults(['clients']),
};

function defaults(readers: string[]): Acl {
  const ace = (groups: string[]): Ace => ({ actors: [], groups });
  return { create: ace(['admins', 'users']), read: ace(['admins', 'users', ...readers]), update: ace(['admins', 'users']), delete: ace(['admins', 'users']), grant: ace(['admins']) };
}

/** The stage level a set of Chef permissions gives. */
export function stageLevelOf(perms: ReadonlySet<ChefPerm>): StageLevel | null {
  if (perms.has('grant')) return 'manage';
  if (perms.has('update') || perms.has('create') || perms.has('delete')) return 'promote';
  if (perms.has('read')) return 'view';
  return null;
}

/** A usage group (Chef Server's per-user association groups, 32 hex digits) is no team of its own. */
const USAG = /^[0-9a-f]{32}$/;
const NOT_TEAMS = new Set(['clients', 'billing-admins', 'public_key_read_access']);

/** The console team for a Chef group: chef-<name>, lower case, [a-z0-9_-], at most 50 characters. */
export function teamNameFor(group: string): string {
  return `chef-${group.toLowerCase().replace(/[^a-z0-9_-]+/g, '-')}`.slice(0, 50).replace(/-+$/, '');
}

/** Chef's effective ACL of an object: its own, else its container's, else Chef's default. */
function effectiveAcl(input: RightsInput, kind: AclKind, name: string): { acl: Acl; from: string } {
  const own = input.acl(kind, name);
  if (own) return { acl: own, from: `the ACL of ${kind}/${name}` };
  const container = input.containerAcl(kind);
  if (container) return { acl: container, from: `the ${kind} container's ACL` };
  return { acl: DEFAULT_CONTAINER_ACLS[kind], from: "Chef's default ACL" };
}

function permsOf(acl: Acl, match: (ace: Ace) => boolean): Set<ChefPerm> {
  return new Set(CHEF_PERMS.filter((p) => acl[p] && match(acl[p]!)));
}

/** The plan: which teams, who is in them, and what each may do. */
export function planRights(input: RightsInput): RightsPlan {
  const plan: RightsPlan = { mode: input.mode, teams: [], orgAdmins: [], stageGrants: [], bagGrants: [], policyOwners: [], notes: [] };
  if (input.mode === 'none') return plan;
  const byName = new Map((input.groups ?? []).map((g) => [g.name, g]));
  if (!byName.has('users')) byName.set('users', { name: 'users', users: [], clients: [], groups: [] });
  const members = new Set(input.members);
  /** A group's people, nested groups followed (each once). */
  const people = (name: string, seen = new Set<string>()): Set<string> => {
    const out = new Set<string>();
    if (seen.has(name)) return out;
    seen.add(name);
    const g = byName.get(name);
    if (name === 'users') for (const m of members) out.add(m);
    if (!g) return out;
    for (const u of g.users) out.add(u);
    for (const sub of g.groups) for (const u of people(sub, seen)) out.add(u);
    return out;
  };
  const groupNames = [...byName.keys()].filter((g) => !USAG.test(g) && !NOT_TEAMS.has(g)).sort((a, b) => (a === 'users' ? -1 : b === 'users' ? 1 : a === 'admins' ? -1 : b === 'admins' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  for (const g of groupNames) {
    // Only the organization's members: a user a group names who is not a member has no rights in Chef either.
    const who = [...people(g)].filter((u) => members.has(u)).sort();
    if (!who.length) {
      if (g !== 'users') plan.notes.push(`group ${g}: no members of the organization in it, no team made`);
      continue;
    }
    plan.teams.push({ team: teamNameFor(g), group: g, members: who });
  }
  for (const g of byName.values()) if (g.clients.length && !NOT_TEAMS.has(g.name)) plan.notes.push(`group ${g.name}: its clients (${g.clients.join(', ')}) keep a client's rights (the console gives clients fixed rights)`);
  const teamOf = new Map(plan.teams.map((t) => [t.group, t.team]));
  const cap = (l: StageLevel | null): StageLevel | null => (input.mode === 'view' && l ? 'view' : l);

  for (const stage of input.stages) {
    const { acl, from } = effectiveAcl(input, 'policy_groups', stage);
    for (const [group, team] of teamOf) {
      const level = cap(stageLevelOf(permsOf(acl, (a) => a.groups.includes(group))));
      if (level) plan.stageGrants.push({ subject: { team }, stage, level, from });
    }
    // Users an ACL names directly (actors), members only.
    const actors = new Set(CHEF_PERMS.flatMap((p) => acl[p]?.actors ?? []).filter((a) => members.has(a)));
    for (const user of [...actors].sort()) {
      const level = cap(stageLevelOf(permsOf(acl, (a) => a.actors.includes(user))));
      if (level) plan.stageGrants.push({ subject: { user }, stage, level, from });
    }
  }
  if (input.mode === 'view') return plan;

  for (const bag of input.bags) {
    const { acl } = effectiveAcl(input, 'data', bag);
    for (const [group, team] of teamOf) {
      const p = permsOf(acl, (a) => a.groups.includes(group));
      if (p.has('update') || p.has('create') || p.has('delete') || p.has('grant')) plan.bagGrants.push({ team, bag, level: 'write' });
    }
  }
  const ownerOrder = [...teamOf.entries()].sort(([a], [b]) => (a === 'users' ? -1 : b === 'users' ? 1 : a === 'admins' ? -1 : b === 'admins' ? 1 : a < b ? -1 : 1));
  for (const policy of input.policies) {
    const { acl } = effectiveAcl(input, 'policies', policy);
    const owner = ownerOrder.find(([group]) => permsOf(acl, (a) => a.groups.includes(group)).has('update'));
    if (owner) plan.policyOwners.push({ policy, team: owner[1] });
  }
  plan.orgAdmins = [...people('admins')].filter((u) => members.has(u)).sort();
  return plan;
}

/** Each person's rights under a plan, in words (the report's and the dry run's "rights" lines). */
export function rightsByPerson(plan: RightsPlan): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (user: string, line: string) => out.set(user, [...(out.get(user) ?? []), line]);
  for (const u of plan.orgAdmins) add(u, "organization admin (Chef's admins group: clients, groups, invitations)");
  for (const t of plan.teams) {
    const stages = plan.stageGrants.filter((g) => 'team' in g.subject && g.subject.team === t.team);
    const byLevel = (['manage', 'promote', 'view'] as const).map((l) => [l, stages.filter((s) => s.level === l).map((s) => s.stage)] as const).filter(([, s]) => s.length);
    const bags = plan.bagGrants.filter((g) => g.team === t.team).map((g) => g.bag);
    const owns = plan.policyOwners.filter((o) => o.team === t.team).map((o) => o.policy);
    const parts = [
      ...byLevel.map(([l, s]) => `${l} on ${s.join(', ')}`),
      ...(bags.length ? [`write on data bags ${bags.join(', ')}`] : []),
      ...(owns.length ? [`owner of policies ${owns.join(', ')}`] : []),
    ];
    for (const u of t.members) add(u, `team ${t.team} (Chef group ${t.group}): ${parts.join('; ') || 'no rights on imported objects'}`);
  }
  for (const g of plan.stageGrants) if ('user' in g.subject) add(g.subject.user, `${g.level} on ${g.stage} (named in ${g.from})`);
  return out;
}
