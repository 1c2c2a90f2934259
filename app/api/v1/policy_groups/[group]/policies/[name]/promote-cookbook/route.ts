import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { promoteCookbookRoute } from '@/lib/api/contracts/promotion';
import { promoteCookbook } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** POST { from, cookbook, expected_revision_id, reason?, override_reason?, dry_run? } → 201 with the derived revision (200 for a no-op or dry run). */
export const POST = apiRoute(promoteCookbookRoute, async (_req, { access, input, body, requestId }) => {
  const result = await promoteCookbook(access, { ...body, ...input, requestId });
  // Issue 15: into a protected stage the derived revision is stored and a promotion request opened (202 { request }).
  if ('request' in result && result.request) return NextResponse.json({ request: result.request, revisionId: result.revisionId }, { status: 202 });
  return NextResponse.json(result, { status: result.noop || result.dryRun ? 200 : 201 });
});
