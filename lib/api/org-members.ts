import type { OrganizationDto, OrgMemberDto } from '@/lib/services/organizations';

/** A member as /api/v1 answers it. */
export function memberJson(m: OrgMemberDto) {
  return { username: m.username, email: m.email, display_name: m.displayName, admin: m.isAdmin };
}

/** An organization as /api/v1 answers it (issue 23, step 4). */
export function organizationJson(o: OrganizationDto) {
  return { name: o.name, full_name: o.fullName, home: o.home, created_at: o.createdAt.toISOString(), members: o.members, clients: o.clients, guid: o.guid };
}
