import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { rollback } from '@/lib/services/rollback';

export const dynamic = 'force-dynamic';

/** POST { to_revision_id, expected_revision_id, reason, override_reason? } — back to a revision this stage held before (202 { request } into a protected stage). */
export const POST = apiRoute(async (req, { access, params, requestId }) => {
  const b = await readJsonObject(req);
  const result = await rollback(access, {
    policy: params.name,
    group: params.group,
    toRevisionId: b.to_revision_id as string,
    // null is an answer ("the stage held no revision"), only a missing field is undefined (issue 17, item 17).
    expectedRevisionId: b.expected_revision_id as string | null,
    reason: b.reason as string,
    overrideReason: b.override_reason as string | undefined,
    freezeOverrideReason: b.override_reason as string | undefined,
    requestId,
  });
  // Issue 15: into a protected stage the rollback becomes a promotion request (202 { request }).
  if (result.request) return NextResponse.json({ request: result.request }, { status: 202 });
  return NextResponse.json(result);
});
