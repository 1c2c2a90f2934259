export { orderImportedStages, stageRank } from './stage-order';
export { differingPaths, fingerprint, fingerprintText } from './fingerprint';
export { CHEF_PERMS, DEFAULT_CONTAINER_ACLS, planRights, rightsByPerson, stageLevelOf, teamNameFor, type Ace, type Acl, type AclKind, type ChefPerm, type PlannedTeam, type RightsInput, type RightsMode, type RightsPlan, type SourceGroupInfo } from './rights';
export { syncState, type SyncRecord, type SyncState } from './sync';
