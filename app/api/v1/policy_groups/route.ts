import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listStagesRoute } from '@/lib/api/contracts/stages';
import { chefGroupList } from '@/lib/db/queries/policies';

export const dynamic = 'force-dynamic';

/** Stages the caller may view, in stage order. */
export const GET = apiRoute(listStagesRoute, async (_req, { access }) => NextResponse.json(await chefGroupList(access)));
