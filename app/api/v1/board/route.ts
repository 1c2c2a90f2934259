import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { boardRoute } from '@/lib/api/contracts/console';
import { loadBoard } from '@/lib/db/queries/board';

export const dynamic = 'force-dynamic';

/** The stage board's data (console endpoint, not part of Chef's API). */
export const GET = apiRoute(boardRoute, async (_req, { access }) => NextResponse.json(await loadBoard(access)));
