import { NextResponse } from 'next/server';
import { apiRoute, readJson } from '@/lib/api/route';
import { orderDirectives } from '@/lib/domain';
import { badRequest } from '@/lib/errors';
import { issuesToErrors, ZOrderDirectivesInput } from '@/lib/validation/previews';

export const dynamic = 'force-dynamic';

/** POST the engine input; get the ordered policies, warnings and errors. Pure computation: nothing is stored. */
export const POST = apiRoute(async (req) => {
  const parsed = ZOrderDirectivesInput.safeParse(await readJson(req));
  if (!parsed.success) {
    const errors = issuesToErrors(parsed.error);
    throw badRequest(errors[0].message, errors);
  }
  return NextResponse.json(orderDirectives(parsed.data));
});
