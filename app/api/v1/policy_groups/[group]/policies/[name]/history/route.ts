import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { historyRoute } from '@/lib/api/contracts/stages';
import { assertCan } from '@/lib/auth/permissions';
import { pointerHistory } from '@/lib/db/queries/history';

export const dynamic = 'force-dynamic';

/** Every pointer change of a policy in a stage, newest first. */
export const GET = apiRoute(historyRoute, async (_req, { access, params }) => {
  assertCan(access, 'stage.view', { stage: params.group });
  return NextResponse.json({ history: await pointerHistory(params.group, params.name) });
});
