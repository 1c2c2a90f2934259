import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { artifactCheck } from '@/lib/db/queries/artifacts';
import { badRequest } from '@/lib/errors';

export const dynamic = 'force-dynamic';

/**
 * ?from=<stage|rev:id>&to=<stage>[&cookbook=name] → { missing_artifacts: ["name identifier"…], to_requires_artifacts }:
 * the cookbooks of what `to` would run that are not on the server (the promote dialog's warning).
 */
export const GET = apiRoute(async (req, { access, params }) => {
  const q = new URL(req.url).searchParams;
  const from = q.get('from');
  const to = q.get('to');
  const missing = [!from && 'from', !to && 'to'].filter(Boolean) as string[];
  if (missing.length) throw badRequest(`Missing query parameter(s): ${missing.join(', ')}`, missing.map((m) => ({ path: `/${m}`, message: `${m} is required` })));
  const r = await artifactCheck(access, params.name, from!, to!, q.get('cookbook') ?? undefined);
  return NextResponse.json({ missing_artifacts: r.missing, to_requires_artifacts: r.toRequiresArtifacts });
});
