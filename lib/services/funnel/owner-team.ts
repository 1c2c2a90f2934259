import type { Tx } from '@/lib/db/client';
import { can, type Access } from '@/lib/auth/permissions';
import { AppError } from '@/lib/errors';
import { sortedBy } from '@/lib/db/order';

/** The input field naming the owner team of a policy that does not exist yet. */
export const OWNER_TEAM_FIELD = '/owner_team';

/**
 * The one rule for which team owns a policy created by a write (upload, PUT on
 * a stage, Chef PUT, compose):
 * - an explicit `ownerTeam` must name an existing team the caller belongs to
 *   (administrators may name any team);
 * - otherwise a caller in exactly one team gives it that team;
 * - a caller in several teams must say which: 422 naming the field and listing
 *   the choices (never a silently unowned policy its creator cannot edit);
 * - an administrator in no team creates an administrator-owned policy (null).
 * Callers check `policy.create` first.
 */
export async function chooseOwnerTeam(tx: Tx, access: Access, ownerTeam?: string | null): Promise<string | null> {
  const mine = await tx.team.findMany({ where: { id: { in: [...access.teamIds] } }, select: { id: true, name: true }, orderBy: { name: 'asc' } }).then(sortedBy((t) => t.name));
  const choices = mine.map((t) => t.name);
  if (ownerTeam) {
    const team = await tx.team.findUnique({ where: { name: ownerTeam }, select: { id: true } });
    // The team named must be one whose policies the caller may upload to (`policy.upload`: its members; administrators any).
    if (!team || !can(access, 'policy.upload', { ownerTeamId: team.id })) {
      const why = !team ? `there is no team '${ownerTeam}'` : `you are not a member of team '${ownerTeam}'`;
      throw new AppError('unprocessable', `Owner team invalid: ${why}${choices.length ? `; choose one of: ${choices.join(', ')}` : ''}`, [
        { path: OWNER_TEAM_FIELD, message: `must be one of your teams${choices.length ? ` (${choices.join(', ')})` : ''}` },
      ], { choices });
    }
    return team.id;
  }
  if (mine.length === 1) return mine[0].id;
  if (mine.length === 0) return null; // an administrator in no team (others may not create policies)
  throw new AppError('unprocessable', `You belong to several teams: say which one owns the new policy (owner_team: one of ${choices.join(', ')})`, [
    { path: OWNER_TEAM_FIELD, message: `is required when you belong to several teams: one of ${choices.join(', ')}` },
  ], { choices });
}
