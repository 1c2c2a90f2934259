/** The cookbooks feature's public face: sandboxes, the file store, cookbook artifacts and their pages. Outside lib/services/cookbooks/ only this file is imported. */
export {
  SANDBOX_TTL_MS,
  assertCookbookRead,
  collectExpiredUploads,
  commitSandbox,
  createSandbox,
  deleteArtifact,
  getArtifact,
  listArtifacts,
  putArtifact,
  readCookbookFile,
  readPresignedCookbookFile,
  uploadSandboxFile,
} from './artifacts';
export { GRACE_MS, collectFiles, directFileUrls, fileStoreReadiness, storeFile, storeFileInTransaction } from './files';
export { migrateFiles } from './migrate';
export { artifactCheck, artifactDiff, artifactPage, type FileStatus } from './pages';
