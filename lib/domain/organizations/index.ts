/**
 * Issue 23 (docs/organizations-design.md): the home organization's fixed id and Chef's refusal of a
 * signed-in user who is not a member of an organization. Pure constants, so the read path (lib/db), the
 * services and the entry points name them alike.
 */

/** The home organization's fixed id: the router and the read path name it without a query, whatever CHEF_ORG is. */
export const HOME_ORG_ID = 'org_home';

/** erchef's 403 text for a user outside an organization (oc_chef_wm_base:forbidden_message(not_member_of_org…)). */
export function notAssociatedMessage(user: string, org: string): string {
  return `'${user}' not associated with organization '${org}'`;
}

/**
 * The organization a server-level request (`/users/…`, `/organizations`, `/license`) authenticates in: none.
 * No client belongs to it (a client signing there is unknown: 401, as in erchef) and no user is its member.
 */
export const SERVER_LEVEL_ORG_ID = '';

/** The 404 of a home-only route under another organization (issue 23, option B: it holds identities only). */
export function notHeldMessage(org: string, home: string): string {
  return `Organization '${org}' holds clients, users and groups only: this server keeps policies, nodes, cookbooks, data bags and search in organization '${home}'.`;
}
