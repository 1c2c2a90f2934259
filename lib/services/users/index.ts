/** The users feature's public face: console users and teams, Chef's server-level users, API tokens, the first administrator, single sign-on, the sign-in throttle. Outside lib/services/users/ only this file is imported. */
export { createChefUser, deleteChefUser, getChefUser, listChefUsers, updateChefUser, type ChefUserDto } from './chef-users';
export { claimFirstRun, firstRunOpen, makeAdministrator, mintSetupCode, setupAnnouncement } from './first-admin';
export { accountKey, ipKey, lockedUntil, recordLoginFailure, recordLoginSuccess, throttlePolicies } from './login-throttle';
export { revokeApiToken } from './revoke-token';
export {
  ZLinkIdentityInput,
  ZTeamGroupsInput,
  ZUnlinkIdentityInput,
  applyRefresh,
  claimRefresh,
  linkIdentity,
  markIdentityRemoved,
  oidcSignIn,
  recordPasswordSignIn,
  releaseRefresh,
  setTeamIdpGroups,
  teamIdpGroups,
  unlinkIdentity,
  type SsoSettings,
} from './sso';
export { ZCreateApiTokenInput, createApiToken } from './tokens';
export {
  ZCreateUserInput,
  ZMembershipInput,
  ZSignOutEverywhereInput,
  ZTeamInput,
  ZUpdateUserInput,
  createTeam,
  createUser,
  setTeamMembership,
  signOutEverywhere,
  updateUser,
} from './users';
export { teamsForAdmin, tokensFor, usersForAdmin } from './pages';
