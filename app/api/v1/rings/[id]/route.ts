import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { getRingRoute } from '@/lib/api/contracts/rings';
import { getRingRollout } from '@/lib/services/rings';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getRingRoute, async (_req, { access, params }) => NextResponse.json({ ring: await getRingRollout(access, params.id) }));
