import { NextResponse } from 'next/server';
import { apiRoute, readJson } from '@/lib/api/route';
import { setStageGrant } from '@/lib/services/set-stage-grant';

export const dynamic = 'force-dynamic';

/** PUT { subject: { type: "user", email } | { type: "team", name }, level: "view" | "promote" | "manage" | "none" } (manage or admin). */
export const PUT = apiRoute(async (req, { access, params, requestId }) => {
  const b = (await readJson(req)) as Record<string, unknown>;
  return NextResponse.json(await setStageGrant(access, { ...(b && typeof b === 'object' ? b : {}), stage: params.group, requestId } as never));
});
