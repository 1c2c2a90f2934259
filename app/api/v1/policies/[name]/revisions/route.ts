import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listRevisionsRoute, uploadRevisionRoute } from '@/lib/api/contracts/policies';
import { assertCan } from '@/lib/auth/permissions';
import { chefPolicy, orphanRevisions } from '@/lib/db/queries/policies';
import { uploadRevision } from '@/lib/services/policies';

export const dynamic = 'force-dynamic';

/** ?orphans=true lists the revisions active in no stage. */
export const GET = apiRoute(listRevisionsRoute, async (_req, { access, params, query }) => {
  assertCan(access, 'policy.read');
  if (query.orphans) {
    const revs = await orphanRevisions(params.name);
    return NextResponse.json({ revisions: Object.fromEntries(revs.map((r) => [r.revisionId, { created_at: r.createdAt.toISOString() }])) });
  }
  return NextResponse.json(await chefPolicy(params.name));
});

/** Upload a revision: 201 created, 200 same content again, 409 same id with other content. */
export const POST = apiRoute(uploadRevisionRoute, async (_req, { access, params, query, text, requestId }) => {
  const result = await uploadRevision(access, { policyName: params.name, text, ownerTeam: query.owner_team ?? query.team, requestId });
  return new NextResponse(text, { status: result.status, headers: { 'content-type': 'application/json' } });
});
