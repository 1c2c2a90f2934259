import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { promotePolicies } from '@/lib/services/promote-policies';

export const dynamic = 'force-dynamic';

/** POST { from, policies: [..] | "all", expected: { policy: revision_id | null }, reason?, override_reason? } — all or nothing. */
export const POST = apiRoute(async (req, { access, params, requestId }) => {
  const body = await readJsonObject(req);
  const result = await promotePolicies(access, { from: body.from as string, to: params.group, policies: body.policies as string[], expected: body.expected as Record<string, string | null>, reason: body.reason as string | undefined, overrideReason: body.override_reason as string | undefined, requestId });
  return NextResponse.json(result);
});
