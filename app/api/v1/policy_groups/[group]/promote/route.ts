import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { promoteRoute } from '@/lib/api/contracts/promotion';
import { promotePolicies } from '@/lib/services/promote-policies';

export const dynamic = 'force-dynamic';

/** POST { from, policies: [..] | "all", expected: { policy: revision_id | null }, reason?, override_reason? } — all or nothing. */
export const POST = apiRoute(promoteRoute, async (_req, { access, params, body, requestId }) => NextResponse.json(await promotePolicies(access, { ...body, to: params.group, requestId })));
