/**
 * Issue 43: which Admin pages a user may use, so the console shows the Admin tab (and each Admin tab) only to
 * those with something to do there. Each page still checks its own right on the server; this only decides what
 * is offered. The rights are the permission table's (lib/auth/permissions.ts): administrators everything; those
 * who manage a stage its permissions and settings; an organization's admins (its `admins` group) its members and
 * invitations; everyone their own API tokens (also in the account menu).
 */
import { cache } from 'react';
import { db } from '@/lib/db/client';
import { sortedBy } from '@/lib/db/order';
import { can, type Access } from '@/lib/auth/permissions';
import { adminOrganizations } from './groups';
import { listOrganizations, ORGANIZATION_SELECT, organizationDto, type OrganizationDto } from './organizations';

export const ADMIN_AREAS = ['permissions', 'stages', 'users', 'organizations', 'teams', 'tokens', 'clients', 'git', 'webhooks', 'import'] as const;
export type AdminArea = (typeof ADMIN_AREAS)[number];

/** The Admin pages `access` may use, in the tabs' order. */
export async function adminAreas(access: Access): Promise<AdminArea[]> {
  const managesStage = [...access.stageLevels.keys()].some((stage) => can(access, 'stage.manage', { stage }));
  const orgAdmin = can(access, 'org.list') || (access.member && (await adminOrganizations(access.userId)).length > 0);
  // Stages and their grants: who manages one of them, or creates them (`stage.create`: administrators, every stage theirs).
  const stagesAdmin = managesStage || can(access, 'stage.create');
  const may: Record<AdminArea, boolean> = {
    permissions: stagesAdmin,
    stages: stagesAdmin,
    users: can(access, 'admin.users'),
    organizations: orgAdmin,
    teams: can(access, 'admin.users'),
    tokens: true,
    clients: can(access, 'admin.users'),
    git: can(access, 'git.manage'),
    webhooks: can(access, 'webhooks.manage'),
    import: can(access, 'admin.import'),
  };
  return ADMIN_AREAS.filter((a) => may[a]);
}

/** adminAreas once per request (the console layout and the Admin layout both ask). */
export const requestAdminAreas = cache(adminAreas);

/**
 * The organizations Admin → Organizations shows `access`: every one to administrators (Chef's superuser), and to
 * anyone else the ones whose `admins` group holds them (they list members and invitations there, invite, and
 * remove members; creating and deleting organizations stays the administrators').
 */
export async function administeredOrganizations(access: Access): Promise<OrganizationDto[]> {
  if (can(access, 'org.list')) return listOrganizations(access);
  if (!access.member) return [];
  const ids = await adminOrganizations(access.userId);
  if (!ids.length) return [];
  return (await db().organization.findMany({ where: { id: { in: ids } }, select: ORGANIZATION_SELECT }).then(sortedBy((o) => o.name))).map(organizationDto);
}
