import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { addFreezeRoute, listFreezesRoute } from '@/lib/api/contracts/guarded';
import { addFreezeWindow, listFreezeWindows } from '@/lib/services/guards';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(listFreezesRoute, async (_req, { access, params }) => NextResponse.json({ freezes: await listFreezeWindows(access, params.group) }));

/** POST { starts_at, ends_at, reason, weekly? } (manage) → 201 { freeze }. */
export const POST = apiRoute(addFreezeRoute, async (_req, { access, input, body, requestId }) => NextResponse.json({ freeze: await addFreezeWindow(access, { ...body, ...input, requestId }) }, { status: 201 }));
