import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { badRequest } from '@/lib/errors';
import { promoteCookbook } from '@/lib/services/promote-cookbook';

export const dynamic = 'force-dynamic';

/** POST { from, cookbook, expected_revision_id, reason?, dry_run? } → 201 with the derived revision (200 for a no-op or dry run). */
export const POST = apiRoute(async (req, { access, params, requestId }) => {
  const b = await readJsonObject(req);
  if (!('expected_revision_id' in b)) throw badRequest('expected_revision_id is required: the revision you saw in the target stage (null for none)', [{ path: '/expected_revision_id', message: 'is required' }]);
  const result = await promoteCookbook(access, {
    policy: params.name,
    to: params.group,
    from: b.from as string,
    cookbook: b.cookbook as string,
    expectedRevisionId: b.expected_revision_id as string | null,
    reason: b.reason as string | undefined,
    overrideReason: b.override_reason as string | undefined,
    freezeOverrideReason: b.override_reason as string | undefined,
    dryRun: b.dry_run as boolean | undefined,
    requestId,
  });
  // Issue 15: into a protected stage the derived revision is stored and a promotion request opened (202 { request }).
  if ('request' in result && result.request) return NextResponse.json({ request: result.request, revisionId: result.revisionId }, { status: 202 });
  return NextResponse.json(result, { status: result.noop || result.dryRun ? 200 : 201 });
});
