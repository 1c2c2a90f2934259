import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteFreezeRoute } from '@/lib/api/contracts/guarded';
import { deleteFreezeWindow } from '@/lib/services/guards';

export const dynamic = 'force-dynamic';

export const DELETE = apiRoute(deleteFreezeRoute, async (_req, { access, input, requestId }) => NextResponse.json(await deleteFreezeWindow(access, { ...input, requestId })));
