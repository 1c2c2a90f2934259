import { chefOrg } from '@/lib/chef/context';
import { notFound } from '@/lib/errors';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { isOrgMember, organizationForName, type OrganizationDto } from '@/lib/services/organizations';
import type { Access } from '@/lib/auth/permissions';
import type { OrgMemberDto } from '@/lib/services/org-members';

/**
 * The organization a path or a form names (`/api/v1/organizations/{org}/…`, Admin → Organizations), as the
 * services take it: the home organization (CHEF_ORG) without a lookup, any other by its name; 404 with Chef's
 * text when there is none (issue 23).
 */
export async function orgOptionsFor(name: string): Promise<{ orgId: string; orgName: string }> {
  const o = await organizationForName(name, chefOrg());
  if (!o) throw notFound(`organization '${name}' does not exist.`);
  return { orgId: o.id, orgName: o.name };
}

/**
 * A /api/v1/organizations/{org}/… request's organization and caller. /api/v1's caller is a member or not of the home
 * organization (its `member`); under another organization, `member` says whether they are a member of that one, so
 * the services' rights (members read, the rest as before) are about the organization the path names.
 */
export async function orgScope(access: Access, name: string): Promise<{ actor: Access; org: { orgId: string; orgName: string } }> {
  const org = await orgOptionsFor(name);
  if (org.orgId === HOME_ORG_ID) return { actor: access, org };
  return { actor: { ...access, member: await isOrgMember(org.orgId, access.userId) }, org };
}

/** A member as /api/v1 answers it. */
export function memberJson(m: OrgMemberDto) {
  return { username: m.username, email: m.email, display_name: m.displayName, admin: m.isAdmin };
}

/** An organization as /api/v1 answers it (issue 23, step 4). */
export function organizationJson(o: OrganizationDto) {
  return { name: o.name, full_name: o.fullName, home: o.home, created_at: o.createdAt.toISOString(), members: o.members, clients: o.clients, guid: o.guid };
}
