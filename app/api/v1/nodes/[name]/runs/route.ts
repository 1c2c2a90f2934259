import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { nodeRunsRoute } from '@/lib/api/contracts/rollout';
import { nodeRunHistory } from '@/lib/services/runs';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(nodeRunsRoute, async (_req, { access, params, query }) => NextResponse.json({ runs: await nodeRunHistory(access, params.name, { limit: query.limit }) }));
