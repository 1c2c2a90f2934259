import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { promoteRoute } from '@/lib/api/contracts/promotion';
import { promotePolicies } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/**
 * POST { from, policies: [..] | "all", expected: { policy: revision_id | null }, reason?, override_reason? } — all or nothing.
 * `override_reason` overrides a freeze window (manage on the stage) and missing artifacts. Into a protected stage,
 * each policy whose change needs approvals gets a promotion request instead of moving: 202 with `requests`
 * (and `request` when there is exactly one).
 */
export const POST = apiRoute(promoteRoute, async (_req, { access, input, body, requestId }) => {
  const result = await promotePolicies(access, { ...body, ...input, requestId });
  if (result.requests.length) return NextResponse.json({ ...result, ...(result.requests.length === 1 ? { request: result.requests[0] } : {}) }, { status: 202 });
  return NextResponse.json(result);
});
