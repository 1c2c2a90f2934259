import { type ApiRoute, handle, json, raw } from '@/lib/api/envelope';
import { cleanupOrphansRoute } from '@/lib/api/contracts/admin';
import { cleanupOrphans, deleteRevision, deletePolicy, revisionJourney, uploadRevision } from '@/lib/services/policies';
import { markBadRoute, unmarkBadRoute } from '@/lib/api/contracts/guarded';
import { markRevisionBad, unmarkRevisionBad } from '@/lib/services/guards';
import { revisionJourneyRoute, deleteRevisionRoute, getRevisionRoute, listRevisionsRoute, uploadRevisionRoute, deletePolicyRoute, getPolicyRoute, listPoliciesRoute } from '@/lib/api/contracts/policies';
import { assertCan } from '@/lib/auth/permissions';
import { revisionDocument, revisionDocumentWithGroups, chefPolicy, orphanRevisions, chefPolicyList } from '@/lib/db/queries/policies';

// /api/v1/orphans/cleanup
/** Admin only: delete revisions active in no stage. Body: { policy?, keep_latest?, dry_run? }. */
const onCleanupOrphans = handle(cleanupOrphansRoute, async (_req, { access, body, requestId }) => json(await cleanupOrphans(access, { ...body, requestId })));

// /api/v1/policies/[name]/revisions/[rev]/bad
/** PUT { reason } — mark the revision bad (promote on a stage running it, the owner team, or admin). */
const onMarkBad = handle(markBadRoute, async (_req, { access, input, body, requestId }) =>
  json({ bad_revision: await markRevisionBad(access, { ...body, ...input, requestId }) }),
);

/** DELETE — unmark. */
const onUnmarkBad = handle(unmarkBadRoute, async (_req, { access, input, requestId }) => json(await unmarkRevisionBad(access, { ...input, requestId })));

// /api/v1/policies/[name]/revisions/[rev]/journey
/** Issue 29: the revision's journey across the stages the caller may view. */
const onRevisionJourney = handle(revisionJourneyRoute, async (_req, { access, params }) => json(await revisionJourney(access, params.name, params.rev)));

// /api/v1/policies/[name]/revisions/[rev]
const jsonText = (text: string, status = 200) => raw(text, { status, headers: { 'content-type': 'application/json' } });

/** ?raw=true downloads the stored document alone, as an attachment. */
const onGetRevision = handle(getRevisionRoute, async (_req, { access, params, query }) => {
  assertCan(access, 'policy.read');
  if (query.raw) {
    const text = await revisionDocument(params.name, params.rev);
    return raw(text, {
      headers: { 'content-type': 'application/json', 'content-disposition': `attachment; filename="${params.name}-${params.rev.slice(0, 10)}.lock.json"` },
    });
  }
  return jsonText(await revisionDocumentWithGroups(access, params.name, params.rev));
});

const onDeleteRevision = handle(deleteRevisionRoute, async (_req, { access, params, requestId }) => jsonText((await deleteRevision(access, params.name, params.rev, requestId)).document));

// /api/v1/policies/[name]/revisions
/** ?orphans=true lists the revisions active in no stage. */
const onListRevisions = handle(listRevisionsRoute, async (_req, { access, params, query }) => {
  assertCan(access, 'policy.read');
  if (query.orphans) {
    const revs = await orphanRevisions(params.name);
    return json({ revisions: Object.fromEntries(revs.map((r) => [r.revisionId, { created_at: r.createdAt.toISOString() }])) });
  }
  return json(await chefPolicy(params.name));
});

/** Upload a revision: 201 created, 200 same content again, 409 same id with other content. */
const onUploadRevision = handle(uploadRevisionRoute, async (_req, { access, params, query, text, requestId }) => {
  const result = await uploadRevision(access, { policyName: params.name, text, ownerTeam: query.owner_team ?? query.team, requestId });
  return raw(text, { status: result.status, headers: { 'content-type': 'application/json' } });
});

// /api/v1/policies/[name]
const onGetPolicy = handle(getPolicyRoute, async (_req, { access, params }) => {
  assertCan(access, 'policy.read');
  return json(await chefPolicy(params.name));
});

const onDeletePolicy = handle(deletePolicyRoute, async (_req, { access, params, requestId }) => json(await deletePolicy(access, params.name, requestId)));

// /api/v1/policies
const onListPolicies = handle(listPoliciesRoute, async (_req, { access }) => {
  assertCan(access, 'policy.read');
  return json(await chefPolicyList());
});

/** The rows of policies: one per contract. */
export const policiesRoutes: ApiRoute[] = [onCleanupOrphans, onMarkBad, onUnmarkBad, onRevisionJourney, onGetRevision, onDeleteRevision, onListRevisions, onUploadRevision, onGetPolicy, onDeletePolicy, onListPolicies];
