import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { revisionJourneyRoute } from '@/lib/api/contracts/policies';
import { revisionJourney } from '@/lib/services/policies';

export const dynamic = 'force-dynamic';

/** Issue 29: the revision's journey across the stages the caller may view. */
export const GET = apiRoute(revisionJourneyRoute, async (_req, { access, params }) => NextResponse.json(await revisionJourney(access, params.name, params.rev)));
