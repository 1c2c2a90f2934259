import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { badRequest } from '@/lib/errors';
import { addFreezeWindow, listFreezeWindows } from '@/lib/services/stage-guards';

export const dynamic = 'force-dynamic';

/** GET: the stage's freeze windows, past ones included (view). */
export const GET = apiRoute(async (_req, { access, params }) => NextResponse.json({ freezes: await listFreezeWindows(access, params.group) }));

/** POST { starts_at, ends_at, reason, weekly?: boolean } (manage) → 201. Times are ISO 8601; weekly windows repeat every 7 days in UTC. */
export const POST = apiRoute(async (req, { access, params, requestId }) => {
  const b = await readJsonObject(req);
  const errors = ['starts_at', 'ends_at'].filter((k) => typeof b[k] !== 'string').map((k) => ({ path: `/${k}`, message: `${k} is required: an ISO 8601 date-time, e.g. 2026-12-24T00:00:00Z` }));
  if (b.weekly !== undefined && typeof b.weekly !== 'boolean') errors.push({ path: '/weekly', message: 'weekly must be true or false' });
  if (errors.length) throw badRequest(errors[0].message, errors);
  const freeze = await addFreezeWindow(access, { stage: params.group, startsAt: b.starts_at as string, endsAt: b.ends_at as string, reason: b.reason as string, weekly: b.weekly as boolean | undefined, requestId });
  return NextResponse.json({ freeze }, { status: 201 });
});
