import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { rollbackRoute } from '@/lib/api/contracts/promotion';
import { rollback } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** POST { to_revision_id, expected_revision_id, reason, override_reason? } — back to a revision this stage held before (202 { request } into a protected stage). */
export const POST = apiRoute(rollbackRoute, async (_req, { access, input, body, requestId }) => {
  const result = await rollback(access, { ...body, ...input, requestId });
  // Issue 15: into a protected stage the rollback becomes a promotion request (202 { request }).
  if (result.request) return NextResponse.json({ request: result.request }, { status: 202 });
  return NextResponse.json(result);
});
