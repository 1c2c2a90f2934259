import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { getGuardStateRoute } from '@/lib/api/contracts/guarded';
import { getStageGuardState } from '@/lib/services/guards';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getGuardStateRoute, async (_req, { access, params }) => NextResponse.json(await getStageGuardState(access, params.group)));
