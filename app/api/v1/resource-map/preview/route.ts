import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { resourceMapPreviewRoute } from '@/lib/api/contracts/console';
import { resolveResourceMap } from '@/lib/domain';

export const dynamic = 'force-dynamic';

/** POST the engine input; get the resolved classes, ranked lists with reasons, warnings and refusals. Nothing is stored. */
export const POST = apiRoute(resourceMapPreviewRoute, async (_req, { body }) => NextResponse.json(resolveResourceMap(body)));
