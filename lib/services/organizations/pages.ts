import { db } from '@/lib/db/client';

/** Issue 23 (step 4): the users stored in an organization's `admins` group (Chef's org admins), for Admin → Organizations. */
export async function orgAdminUserIds(orgId: string): Promise<string[]> {
  const rows = await db().chefGroupMember.findMany({ where: { group: { orgId, name: 'admins' }, userId: { not: null } }, select: { userId: true } });
  return rows.map((r) => r.userId!);
}
