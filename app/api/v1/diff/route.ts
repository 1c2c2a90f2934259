import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { diffRoute } from '@/lib/api/contracts/console';
import { compare } from '@/lib/db/queries/compare';

export const dynamic = 'force-dynamic';

/** ?policy=P&from=<stage|rev:id>&to=<stage|rev:id> → the LockDiff (and, with text=true, both canonical texts). */
export const GET = apiRoute(diffRoute, async (_req, { access, query }) => {
  const c = await compare(access, query.policy, query.from, query.to);
  const body = query.text ? c : { policy: c.policy, from: c.from, to: c.to, takeovers: c.takeovers, missing_artifacts: c.missingArtifacts, to_requires_artifacts: c.toRequiresArtifacts, ...c.diff };
  return NextResponse.json(body);
});
