import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { loadBoard } from '@/lib/db/queries/board';

export const dynamic = 'force-dynamic';

/** The stage board's data (console endpoint, not part of Chef's API). */
export const GET = apiRoute(async (_req, { access }) => NextResponse.json(await loadBoard(access)));
