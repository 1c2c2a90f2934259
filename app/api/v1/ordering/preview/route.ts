import { NextResponse } from 'next/server';
import { apiRoute, readJson } from '@/lib/api/route';
import { orderDirectives } from '@/lib/domain';
import { ORDERING_LIMITS, ZOrderDirectivesInput } from '@/lib/validation/previews';
import { parseInput } from '@/lib/services/internal/parse';

export const dynamic = 'force-dynamic';

/** POST the engine input; get the ordered policies, warnings and errors. Pure computation: nothing is stored. */
export const POST = apiRoute(async (req) => {
  return NextResponse.json(orderDirectives(parseInput(ZOrderDirectivesInput, await readJson(req, ORDERING_LIMITS.bytes))));
});
