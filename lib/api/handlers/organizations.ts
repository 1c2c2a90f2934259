import { type ApiRoute, handle, json } from '@/lib/api/envelope';
import { getGroupRoute, updateGroupRoute, removeMemberRoute, addMemberRoute, listMembersRoute, deleteOrganizationRoute, getOrganizationRoute, createOrganizationRoute, listOrganizationsRoute } from '@/lib/api/contracts/organizations';
import { memberJson, organizationJson } from '@/lib/api/org-members';
import { orgScope } from '@/lib/services/organizations';
import {
  getGroup,
  updateGroup,
  type GroupDto,
  dissociateUser,
  associateUser,
  listOrgMembers,
  deleteOrganization,
  getOrganization,
  createOrganization,
  listOrganizations,
  orgSettings,
  updateOrgSettings,
} from '@/lib/services/organizations';
import { getSettingsRoute, putSettingsRoute, getTeamIdpGroupsRoute, putTeamIdpGroupsRoute } from '@/lib/api/contracts/admin';
import { setTeamIdpGroups, teamIdpGroups } from '@/lib/services/users';

// /api/v1/organizations/[org]/groups/[group]
const groupJson = (g: GroupDto) => ({ name: g.name, users: g.users, clients: g.clients, groups: g.groups, actors: g.actors });

/** One of the organization's groups (issue 23, step 3). */
const onGetGroup = handle(getGroupRoute, async (_req, { access, params }) => {
  const { actor, org } = await orgScope(access, params.org);
  return json(groupJson(await getGroup(actor, params.group, org)));
});

/** Administrators and org admins: replace a group's members. */
const onUpdateGroup = handle(updateGroupRoute, async (_req, { access, params, body, requestId }) => {
  const { actor, org } = await orgScope(access, params.org);
  return json(groupJson(await updateGroup(actor, params.group, body, { ...org, requestId })));
});

// /api/v1/organizations/[org]/members/[user]
/** Administrators, or the user themselves: end a membership (issue 23). */
const onRemoveMember = handle(removeMemberRoute, async (_req, { access, params, requestId }) => {
  const { actor, org } = await orgScope(access, params.org);
  const ref = params.user.includes('@') ? { email: params.user } : { username: params.user };
  return json(memberJson(await dissociateUser(actor, ref, { ...org, requestId })));
});

// /api/v1/organizations/[org]/members
/** The organization's members (issue 23). */
const onListMembers = handle(listMembersRoute, async (_req, { access, params }) => {
  const { actor, org } = await orgScope(access, params.org);
  return json((await listOrgMembers(actor, org)).map(memberJson));
});

/** Administrators: make a user a member (201; 409 for a member). */
const onAddMember = handle(addMemberRoute, async (_req, { access, params, body, requestId }) => {
  const { actor, org } = await orgScope(access, params.org);
  const ref = body.username !== undefined ? { username: body.username } : { email: body.email! };
  return json(memberJson(await associateUser(actor, ref, { ...org, requestId })), { status: 201 });
});

// /api/v1/organizations/[org]
/** One organization (administrators and its members; issue 23, step 4). */
const onGetOrganization = handle(getOrganizationRoute, async (_req, { access, params }) => json(organizationJson(await getOrganization(access, params.org))));

/** Administrators: delete an organization (not the home one) with its clients, memberships and groups. */
const onDeleteOrganization = handle(deleteOrganizationRoute, async (_req, { access, params, requestId }) => json(organizationJson(await deleteOrganization(access, params.org, { requestId }))));

// /api/v1/organizations
/** Every organization (administrators; issue 23, step 4). */
const onListOrganizations = handle(listOrganizationsRoute, async (_req, { access }) => json((await listOrganizations(access)).map(organizationJson)));

/** Administrators: create an organization; its validator's private key is in this answer only. */
const onCreateOrganization = handle(createOrganizationRoute, async (_req, { access, raw, requestId }) => {
  const { organization, validator } = await createOrganization(access, raw, { requestId });
  return json(
    { organization: organizationJson(organization), validator: { name: validator.name, private_key: validator.privateKey } },
    { status: 201, headers: { location: `/api/v1/organizations/${encodeURIComponent(organization.name)}`, 'cache-control': 'no-store' } },
  );
});

// /api/v1/settings
/** The organization's settings (every signed-in user may read them). */
const onGetSettings = handle(getSettingsRoute, async () => json(await orgSettings()));

/** Admin: PUT { stage_isolation } (audited). */
const onPutSettings = handle(putSettingsRoute, async (_req, { access, body, requestId }) => json(await updateOrgSettings(access, body, requestId)));

// /api/v1/teams/[team]/idp_groups
/** Issue 45: GET a team's identity-provider groups (admin). */
const onGetTeamIdpGroups = handle(getTeamIdpGroupsRoute, async (_req, { access, params }) => json(await teamIdpGroups(access, params.team)));

/** Issue 45: PUT { groups: [...] } (admin; audited). */
const onPutTeamIdpGroups = handle(putTeamIdpGroupsRoute, async (_req, { access, params, body, requestId }) => json(await setTeamIdpGroups(access, { team: params.team, groups: body.groups }, requestId)));

/** The rows of organizations: one per contract. */
export const organizationsRoutes: ApiRoute[] = [onGetGroup, onUpdateGroup, onRemoveMember, onListMembers, onAddMember, onGetOrganization, onDeleteOrganization, onListOrganizations, onCreateOrganization, onGetSettings, onPutSettings, onGetTeamIdpGroups, onPutTeamIdpGroups];
