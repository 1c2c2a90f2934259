import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { compare } from '@/lib/db/queries/compare';
import { badRequest } from '@/lib/errors';

export const dynamic = 'force-dynamic';

/** ?policy=P&from=<stage|rev:id>&to=<stage|rev:id> → the LockDiff (and, with text=true, both canonical texts). */
export const GET = apiRoute(async (req, { access }) => {
  const q = new URL(req.url).searchParams;
  const policy = q.get('policy');
  const from = q.get('from');
  const to = q.get('to');
  const missing = [!policy && 'policy', !from && 'from', !to && 'to'].filter(Boolean) as string[];
  if (missing.length) throw badRequest(`Missing query parameter(s): ${missing.join(', ')}`, missing.map((m) => ({ path: `/${m}`, message: `${m} is required` })));
  const c = await compare(access, policy!, from!, to!);
  const body = q.get('text') === 'true' ? c : { policy: c.policy, from: c.from, to: c.to, takeovers: c.takeovers, missing_artifacts: c.missingArtifacts, to_requires_artifacts: c.toRequiresArtifacts, ...c.diff };
  return NextResponse.json(body);
});
