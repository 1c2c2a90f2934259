import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { rolloutHealthRoute } from '@/lib/api/contracts/rollout';
import { rolloutHealth } from '@/lib/services/runs';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(rolloutHealthRoute, async (_req, { access }) => NextResponse.json({ health: await rolloutHealth(access) }));
