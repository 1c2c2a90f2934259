import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { markBadRoute, unmarkBadRoute } from '@/lib/api/contracts/guarded';
import { markRevisionBad, unmarkRevisionBad } from '@/lib/services/guards';

export const dynamic = 'force-dynamic';

/** PUT { reason } — mark the revision bad (promote on a stage running it, the owner team, or admin). */
export const PUT = apiRoute(markBadRoute, async (_req, { access, input, body, requestId }) =>
  NextResponse.json({ bad_revision: await markRevisionBad(access, { ...body, ...input, requestId }) }),
);

/** DELETE — unmark. */
export const DELETE = apiRoute(unmarkBadRoute, async (_req, { access, input, requestId }) => NextResponse.json(await unmarkRevisionBad(access, { ...input, requestId })));
