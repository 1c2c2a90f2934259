/** The organizations feature's public face: organizations, memberships, groups, invitations, settings, the shared Chef name space, the admin areas. Outside lib/services/organizations/ only this file is imported. */
export { adminAreas, administeredOrganizations, requestAdminAreas, type AdminArea } from './admin-areas';
export { listUserOrganizations, updateOrganization } from './edits';
export { actorGroups, getGroup, listGroups, setOrgAdmin, updateGroup, withActorGroups, withOrgAdminFacts, type GroupDto } from './groups';
export {
  cancelInvitation,
  countUserInvitations,
  createInvitation,
  listMyInvitations,
  listOrgInvitations,
  listUserInvitations,
  respondToInvitation,
  type MyInvitationDto,
} from './invitations';
export { associateUser, dissociateUser, getOrgMember, listOrgMembers, type OrgMemberDto } from './members';
export { chefNameTaken, claimChefName, releaseClientName, stageValidatorName, validatorName } from './names';
export {
  HOME_MEMBERSHIP,
  HOME_ORG_ID,
  HomeOrganizationError,
  SYSTEM_GROUPS,
  createOrganization,
  deleteOrganization,
  ensureHomeOrganization,
  getOrganization,
  homeGroupId,
  homeOrganization,
  homeOrganizationReport,
  isOrgMember,
  listOrganizations,
  organizationByName,
  organizationForName,
  organizationNamed,
  orgScope,
  type OrganizationDto,
} from './organizations';
export { demoLogins, orgSettings } from './settings-queries';
export { updateOrgSettings } from './settings';
export { orgAdminUserIds } from './pages';
