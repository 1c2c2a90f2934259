import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { rejectRequestRoute } from '@/lib/api/contracts/guarded';
import { rejectPromotionRequest } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** POST { comment } (an approver of the stage, not the requester). */
export const POST = apiRoute(rejectRequestRoute, async (_req, { access, input, body, requestId }) => NextResponse.json({ request: await rejectPromotionRequest(access, { ...body, ...input, requestId }) }));
