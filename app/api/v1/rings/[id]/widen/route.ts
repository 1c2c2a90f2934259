import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { parseRingActionBody, widenRingRoute } from '@/lib/api/contracts/rings';
import { widenRingRollout } from '@/lib/services/rings';

export const dynamic = 'force-dynamic';

/** POST { expected_step?, reason?, override_reason?, gate_override_reason? } (the body is optional). */
export const POST = apiRoute(widenRingRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseRingActionBody(text);
  return NextResponse.json({ ring: await widenRingRollout(access, { ...b, ...input, requestId }) });
});
