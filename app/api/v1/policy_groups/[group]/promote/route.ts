import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { promotePolicies } from '@/lib/services/promote-policies';

export const dynamic = 'force-dynamic';

/**
 * POST { from, policies: [..] | "all", expected: { policy: revision_id | null }, reason?, override_reason? } — all or nothing.
 * `override_reason` overrides a freeze window (manage on the stage) and missing artifacts. Into a protected stage,
 * each policy whose change needs approvals gets a promotion request instead of moving: 202 with `requests`
 * (and `request` when there is exactly one).
 */
export const POST = apiRoute(async (req, { access, params, requestId }) => {
  const body = await readJsonObject(req);
  const override = body.override_reason as string | undefined;
  const result = await promotePolicies(access, { from: body.from as string, to: params.group, policies: body.policies as string[], expected: body.expected as Record<string, string | null>, reason: body.reason as string | undefined, overrideReason: override, freezeOverrideReason: override, requestId });
  if (result.requests.length) return NextResponse.json({ ...result, ...(result.requests.length === 1 ? { request: result.requests[0] } : {}) }, { status: 202 });
  return NextResponse.json(result);
});
