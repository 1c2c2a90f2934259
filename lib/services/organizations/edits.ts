/**
 * Issue 23 (organizations): Chef's `PUT /organizations/:org` (`knife org edit`) and `GET /users/:user/organizations`
 * (`knife user show -l`). Apart from organizations.ts because they read the actor's groups (chef-groups.ts, which
 * itself reads organizations.ts).
 */
import { db } from '@/lib/db/client';
import { assertCan, type Actor } from '@/lib/auth/permissions';
import { badRequest, chefStringError } from '@/lib/errors';
import { compareText } from '@/lib/db/order';
import { audit, transaction } from '@/lib/services/funnel';
import { withActorGroups, withOrgAdminFacts } from './groups';
import { ORGANIZATION_SELECT, noSuchOrganization, parseOrganizationInput, organizationDto, type OrganizationDto } from './organizations';

/**
 * Chef's `PUT /organizations/:org` (`knife org edit`; administrators and the organization's org admins): its full
 * name. The body is Chef's organization (`{name, full_name}`); `name` must be the organization's own (renaming is
 * not served, as erchef: 400). One transaction with its `org.update` event; no change, no event.
 */
export async function updateOrganization(actor: Actor, name: string, raw: unknown, opts: { requestId?: string } = {}): Promise<OrganizationDto> {
  const o = await db().organization.findUnique({ where: { name }, select: { id: true } });
  if (!o) throw noSuchOrganization(name);
  assertCan(actor, 'org.update', await withActorGroups(actor, {}, { orgId: o.id }));
  const b = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const input = parseOrganizationInput({ name: b.name ?? name, full_name: b.full_name });
  if (input.name !== name) throw badRequest('Invalid organization name. Organization name must match existing name.', [{ path: '/name', message: `must be '${name}' (organizations are not renamed)` }]);
  return transaction(async (tx) => {
    const before = await tx.organization.findUnique({ where: { id: o.id }, select: { fullName: true } });
    if (!before) throw noSuchOrganization(name);
    if (before.fullName !== input.fullName) {
      await tx.organization.update({ where: { id: o.id }, data: { fullName: input.fullName } });
      await audit(tx, actor, { action: 'org.update', targetType: 'organization', target: name, before: { full_name: before.fullName }, after: { full_name: input.fullName }, requestId: opts.requestId });
    }
    return organizationDto(await tx.organization.findUniqueOrThrow({ where: { id: o.id }, select: ORGANIZATION_SELECT }));
  });
}

/**
 * The organizations a user is a member of (Chef's `GET /users/:user/organizations`, `knife user show -l`): the
 * user, administrators, and the org admins of an organization the user is a member of (`user.read`). 404 "Could
 * not find user U".
 */
export async function listUserOrganizations(actor: Actor, username: string): Promise<OrganizationDto[]> {
  const u = await db().user.findUnique({ where: { chefName: username }, select: { id: true, orgMemberships: { select: { org: { select: ORGANIZATION_SELECT } } } } });
  if (!u) throw chefStringError('not_found', `Could not find user ${username}`);
  assertCan(actor, 'user.read', await withOrgAdminFacts(actor, u.id, { userId: u.id }));
  return u.orgMemberships.map((m) => organizationDto(m.org)).sort((a, b) => compareText(a.name, b.name));
}
