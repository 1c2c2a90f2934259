import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { setStageGrantRoute } from '@/lib/api/contracts/stages';
import { setStageGrant } from '@/lib/services/stages';

export const dynamic = 'force-dynamic';

/** PUT { subject: { type: "user", email } | { type: "team", name }, level: "view" | "promote" | "manage" | "none" } (manage or admin). */
export const PUT = apiRoute(setStageGrantRoute, async (_req, { access, input, body, requestId }) =>
  NextResponse.json(await setStageGrant(access, { ...body, ...input, requestId })),
);
