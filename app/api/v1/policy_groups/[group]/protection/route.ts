import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteProtectionRoute, getProtectionRoute, putProtectionRoute } from '@/lib/api/contracts/guarded';
import { getStageProtection, setStageProtection } from '@/lib/services/stage-guards';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getProtectionRoute, async (_req, { access, params }) => NextResponse.json(await getStageProtection(access, params.group)));

/** PUT { approvals_required, rules, approvers?, protected? } (manage). */
export const PUT = apiRoute(putProtectionRoute, async (_req, { access, params, body, requestId }) => NextResponse.json(await setStageProtection(access, { ...body, stage: params.group, requestId })));

export const DELETE = apiRoute(deleteProtectionRoute, async (_req, { access, params, requestId }) => NextResponse.json(await setStageProtection(access, { stage: params.group, protected: false, requestId })));
