import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteFreezeWindow } from '@/lib/services/stage-guards';

export const dynamic = 'force-dynamic';

/** DELETE a freeze window (manage). */
export const DELETE = apiRoute(async (_req, { access, params, requestId }) => NextResponse.json(await deleteFreezeWindow(access, { stage: params.group, id: params.id, requestId })));
