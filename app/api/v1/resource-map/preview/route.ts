import { NextResponse } from 'next/server';
import { apiRoute, readJson } from '@/lib/api/route';
import { resolveResourceMap } from '@/lib/domain';
import { ZResolveResourceMapInput } from '@/lib/validation/previews';
import { parseInput } from '@/lib/services/internal/parse';

export const dynamic = 'force-dynamic';

/** POST the engine input; get the resolved classes, ranked lists with reasons, warnings and refusals. Nothing is stored. */
export const POST = apiRoute(async (req) => {
  return NextResponse.json(resolveResourceMap(parseInput(ZResolveResourceMapInput, await readJson(req))));
});
