/** The import feature's public face: moving an organization in from a Chef server or a directory, and the import reports. Outside lib/services/import/ only this file is imported. */
export { DirectorySource } from './directory-source';
export { exportOrganization } from './export-tree';
export { formatReport, formatVerify } from './format-report';
export { recentImports } from './reports';
export { runImport, type ImportProgress } from './run-import';
export {
  SourceError,
  aclFromJson,
  groupFromJson,
  type Acl,
  type AclKind,
  type ImportSource,
  type SourceClient,
  type SourceFileRef,
  type SourceGroupInfo,
  type SourceKey,
  type SourceUser,
} from './source';
export { verifyImport } from './verify';
