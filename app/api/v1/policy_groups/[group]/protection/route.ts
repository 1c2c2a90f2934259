import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteProtectionRoute, getProtectionRoute, putProtectionRoute } from '@/lib/api/contracts/guarded';
import { getStageProtection, liftStageProtection, setStageProtection } from '@/lib/services/guards';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getProtectionRoute, async (_req, { access, params }) => NextResponse.json(await getStageProtection(access, params.group)));

/** PUT { approvals_required, rules, approvers?, protected? } (manage). */
export const PUT = apiRoute(putProtectionRoute, async (_req, { access, input, body, requestId }) => NextResponse.json(await setStageProtection(access, { ...body, ...input, requestId })));

export const DELETE = apiRoute(deleteProtectionRoute, async (_req, { access, input, requestId }) => NextResponse.json(await liftStageProtection(access, { ...input, requestId })));
