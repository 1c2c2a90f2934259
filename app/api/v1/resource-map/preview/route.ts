import { NextResponse } from 'next/server';
import { apiRoute, readJson } from '@/lib/api/route';
import { resolveResourceMap } from '@/lib/domain';
import { badRequest } from '@/lib/errors';
import { issuesToErrors, ZResolveResourceMapInput } from '@/lib/validation/previews';

export const dynamic = 'force-dynamic';

/** POST the engine input; get the resolved classes, ranked lists with reasons, warnings and refusals. Nothing is stored. */
export const POST = apiRoute(async (req) => {
  const parsed = ZResolveResourceMapInput.safeParse(await readJson(req));
  if (!parsed.success) {
    const errors = issuesToErrors(parsed.error);
    throw badRequest(errors[0].message, errors);
  }
  return NextResponse.json(resolveResourceMap(parsed.data));
});
