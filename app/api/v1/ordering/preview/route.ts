import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { orderingPreviewRoute } from '@/lib/api/contracts/console';
import { orderDirectives } from '@/lib/domain';

export const dynamic = 'force-dynamic';

/** POST the engine input; get the ordered policies, warnings and errors. Pure computation: nothing is stored. */
export const POST = apiRoute(orderingPreviewRoute, async (_req, { body }) => NextResponse.json(orderDirectives(body)));
