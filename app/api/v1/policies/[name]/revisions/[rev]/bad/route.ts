import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { markBadRoute, unmarkBadRoute } from '@/lib/api/contracts/guarded';
import { markRevisionBad, unmarkRevisionBad } from '@/lib/services/bad-revisions';

export const dynamic = 'force-dynamic';

/** PUT { reason } — mark the revision bad (promote on a stage running it, the owner team, or admin). */
export const PUT = apiRoute(markBadRoute, async (_req, { access, params, body, requestId }) =>
  NextResponse.json({ bad_revision: await markRevisionBad(access, { policy: params.name, revisionId: params.rev, reason: body.reason, requestId }) }),
);

/** DELETE — unmark. */
export const DELETE = apiRoute(unmarkBadRoute, async (_req, { access, params, requestId }) => NextResponse.json(await unmarkRevisionBad(access, { policy: params.name, revisionId: params.rev, requestId })));
