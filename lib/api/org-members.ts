import 'server-only';
import { chefOrg } from '@/lib/chef/context';
import { notFound } from '@/lib/errors';
import type { OrgMemberDto } from '@/lib/services/org-members';

/** The organization a /api/v1/organizations/{org}/… path names: the one this console serves, else 404 (issue 23). */
export function homeOrg(name: string): string {
  const org = chefOrg();
  if (name !== org) throw notFound(`organization '${name}' does not exist.`);
  return org;
}

/** A member as /api/v1 answers it. */
export function memberJson(m: OrgMemberDto) {
  return { username: m.username, email: m.email, display_name: m.displayName, admin: m.isAdmin };
}
