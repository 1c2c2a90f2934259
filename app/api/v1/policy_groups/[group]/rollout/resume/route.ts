import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { parseResumeBody, resumeAutomationRoute } from '@/lib/api/contracts/rollout';
import { resumeAutomation } from '@/lib/services/runs';

export const dynamic = 'force-dynamic';

/** POST { reason? } (the body is optional): lifts the hold of the stage's automatic promotion (manage). */
export const POST = apiRoute(resumeAutomationRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseResumeBody(text);
  return NextResponse.json(await resumeAutomation(access, { ...b, ...input, requestId }));
});
