import type { Access, StageLevel } from '@/lib/auth/permissions';
import { highestLevel } from '@/lib/auth/permissions';
import type { Tx } from '../client';
import { db } from '../client';

/**
 * Loads a user's permissions from the database; null when the user is missing
 * or deactivated, or, for a browser session, when the session's version is
 * no longer the user's (signed out, password changed: issue 17, item 7).
 */
export async function loadAccess(userId: string, tx: Tx = db(), opts: { sessionVersion?: number } = {}): Promise<Access | null> {
  const user = await tx.user.findUnique({
    where: { id: userId },
    select: { id: true, email: true, name: true, isAdmin: true, active: true, sessionVersion: true, memberships: { select: { teamId: true } } },
  });
  if (!user || !user.active) return null;
  if (opts.sessionVersion !== undefined && opts.sessionVersion !== user.sessionVersion) return null;
  const teamIds = new Set(user.memberships.map((m) => m.teamId));
  const grants = await tx.groupPermission.findMany({
    where: { OR: [{ userId: user.id }, { teamId: { in: [...teamIds] } }] },
    select: { level: true, group: { select: { name: true } } },
  });
  const stageLevels = new Map<string, StageLevel>();
  for (const g of grants) {
    if (g.level !== 'view' && g.level !== 'promote' && g.level !== 'manage') continue;
    stageLevels.set(g.group.name, highestLevel(stageLevels.get(g.group.name), g.level));
  }
  return { kind: 'user', userId: user.id, email: user.email, name: user.name, isAdmin: user.isAdmin, teamIds, stageLevels };
}
