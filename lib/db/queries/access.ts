import type { Access, StageLevel } from '@/lib/auth/permissions';
import { highestLevel } from '@/lib/auth/permissions';
import { userAccessRow, type UserAccessRow } from './chef-read-path';

/**
 * Loads a user's permissions from the database (one prepared statement, see
 * chef-read-path.ts: every authenticated request starts here), with their
 * membership of the home organization (issue 23: the console and /api/v1 are
 * the home organization's); null when the
 * user is missing or deactivated, or, for a browser session, when the
 * session's version is no longer the user's (signed out, password changed:
 * issue 17, item 7).
 */
export async function loadAccess(userId: string, opts: { sessionVersion?: number } = {}): Promise<Access | null> {
  return accessOf(await userAccessRow(userId), opts);
}

/** A user's permissions from the row the read path reads (null: missing, deactivated, or another session version). */
export function accessOf(user: UserAccessRow | null, opts: { sessionVersion?: number } = {}): Access | null {
  if (!user || !user.active) return null;
  if (opts.sessionVersion !== undefined && opts.sessionVersion !== user.sessionVersion) return null;
  const teamIds = new Set(user.teamIds);
  const stageLevels = new Map<string, StageLevel>();
  for (const [stage, level] of user.grants) {
    if (level !== 'view' && level !== 'promote' && level !== 'manage') continue;
    stageLevels.set(stage, highestLevel(stageLevels.get(stage), level));
  }
  return { kind: 'user', userId: user.id, email: user.email, name: user.name, chefName: user.chefName, isAdmin: user.isAdmin, member: user.member, teamIds, stageLevels };
}
