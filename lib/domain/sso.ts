/**
 * Issue 45, single sign-on: what a person's identity-provider groups mean in the console. Pure: the claim as the
 * provider sent it and the teams' group lists in, the memberships and administrator flag that follow out.
 */

/** The longest group name the console keeps or matches (a longer one is ignored, never stored). */
export const MAX_GROUP_NAME = 256;
/** At most this many groups on one team. */
export const MAX_TEAM_GROUPS = 100;

export type GroupsClaim =
  | { ok: true; groups: Set<string>; ignored: number }
  | { ok: false; reason: 'missing' | 'not-a-list' };

/**
 * The groups claim read from the ID token's claims: a list of strings (a single string is read as a list of one,
 * as some providers send one group so). Entries that are not strings, empty or longer than MAX_GROUP_NAME are
 * ignored and counted. Any number of groups is read (only those mapped to a team are ever stored).
 */
export function readGroupsClaim(claims: Record<string, unknown>, claim: string): GroupsClaim {
  if (!(claim in claims) || claims[claim] === null || claims[claim] === undefined) return { ok: false, reason: 'missing' };
  const raw = claims[claim];
  const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : null;
  if (!list) return { ok: false, reason: 'not-a-list' };
  const groups = new Set<string>();
  let ignored = 0;
  for (const g of list) {
    if (typeof g === 'string' && g.length > 0 && g.length <= MAX_GROUP_NAME) groups.add(g);
    else ignored++;
  }
  return { ok: true, groups, ignored };
}

/** `OIDC_ADMIN_GROUPS`: comma-separated group names, blanks dropped. */
export function parseGroupList(value: string | undefined): string[] {
  return [...new Set((value ?? '').split(',').map((s) => s.trim()).filter(Boolean))];
}

export interface TeamGroups {
  teamId: string;
  team: string;
  groups: readonly string[];
}

export interface GroupDecision {
  /** Teams the person belongs to by their groups, with the groups that put them there. */
  teams: Map<string, { team: string; groups: string[] }>;
  /** Mapped groups they are in (teams' groups and administrator groups), sorted: what is stored and shown. */
  mappedGroups: string[];
  /** In one of OIDC_ADMIN_GROUPS. */
  admin: boolean;
}

/** Which teams (and whether administrator) a person's groups give, by the teams' group lists and the administrator groups. */
export function decideGroups(groups: ReadonlySet<string>, teams: readonly TeamGroups[], adminGroups: readonly string[]): GroupDecision {
  const result = new Map<string, { team: string; groups: string[] }>();
  const mapped = new Set<string>();
  for (const t of teams) {
    const hit = t.groups.filter((g) => groups.has(g));
    if (hit.length) {
      result.set(t.teamId, { team: t.team, groups: [...hit].sort() });
      for (const g of hit) mapped.add(g);
    }
  }
  const adminHits = adminGroups.filter((g) => groups.has(g));
  for (const g of adminHits) mapped.add(g);
  return { teams: result, mappedGroups: [...mapped].sort(), admin: adminHits.length > 0 };
}

export interface MembershipChanges {
  add: string[];
  remove: string[];
}

/**
 * Memberships follow groups on the teams that have groups: a team with a group list gains the person when one of its
 * groups has them and loses them otherwise (an administrator's manual membership of such a team included). Teams
 * without groups are not touched.
 */
export function membershipChanges(current: ReadonlySet<string>, decision: GroupDecision, teams: readonly TeamGroups[]): MembershipChanges {
  const managed = new Set(teams.filter((t) => t.groups.length > 0).map((t) => t.teamId));
  const add = [...decision.teams.keys()].filter((id) => !current.has(id)).sort();
  const remove = [...current].filter((id) => managed.has(id) && !decision.teams.has(id)).sort();
  return { add, remove };
}

/** What the administrator flag becomes: groups give and take it only when they gave it (an administrator's own flag stays). */
export function adminChange(decision: GroupDecision, now: { isAdmin: boolean; adminFromGroups: boolean }, adminGroupsConfigured: boolean): { isAdmin: boolean; adminFromGroups: boolean } {
  if (!adminGroupsConfigured) return now;
  if (decision.admin) return now.isAdmin ? now : { isAdmin: true, adminFromGroups: true };
  return now.adminFromGroups ? { isAdmin: false, adminFromGroups: false } : now;
}

/** A group name an administrator may put on a team: printable, no control characters, trimmed, at most MAX_GROUP_NAME. */
export function groupNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_GROUP_NAME) return `is at most ${MAX_GROUP_NAME} characters`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters';
  if (name !== name.trim()) return 'must not start or end with spaces';
  return null;
}

/** LOCAL_LOGIN: true (default) | false | admins. Anything else is a configuration error. */
export type LocalLogin = 'true' | 'false' | 'admins';
export function parseLocalLogin(value: string | undefined): LocalLogin | null {
  const v = (value ?? 'true').trim().toLowerCase();
  return v === 'true' || v === 'false' || v === 'admins' ? v : null;
}

/**
 * A break-glass account: the administrator made by `npm run admin:create` (or the first-run page, the same act from a
 * browser), marked by User.origin. With LOCAL_LOGIN=admins only these sign in with a password.
 */
export function isBreakGlass(user: { origin: string | null; isAdmin: boolean }): boolean {
  return user.isAdmin && (user.origin === 'admin-create' || user.origin === 'first-run');
}
