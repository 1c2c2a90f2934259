import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { setStageGrant, type SetStageGrantInput } from '@/lib/services/set-stage-grant';

export const dynamic = 'force-dynamic';

/** PUT { subject: { type: "user", email } | { type: "team", name }, level: "view" | "promote" | "manage" | "none" } (manage or admin). */
export const PUT = apiRoute(async (req, { access, params, requestId }) => {
  const b = await readJsonObject(req);
  return NextResponse.json(await setStageGrant(access, { subject: b.subject, level: b.level, stage: params.group, requestId } as SetStageGrantInput));
});
