/** The policies feature's public face: policies and revisions: upload, delete, orphans, the revision journey, the policy pages. Outside lib/services/policies/ only this file is imported. */
export { cleanupOrphans, deletePolicy, deleteRevision } from './delete';
export { revisionJourney } from './journey';
export { listPoliciesForPage, policyDetail, revisionDetail } from './pages';
export { uploadRevision } from './upload';
