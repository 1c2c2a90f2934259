import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { parseRingActionBody, resumeRingRoute } from '@/lib/api/contracts/rings';
import { resumeRingRollout } from '@/lib/services/rings';

export const dynamic = 'force-dynamic';

/** POST { expected_step?, reason?, override_reason?, gate_override_reason? } (the body is optional). */
export const POST = apiRoute(resumeRingRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseRingActionBody(text);
  return NextResponse.json({ ring: await resumeRingRollout(access, { ...b, ...input, requestId }) });
});
