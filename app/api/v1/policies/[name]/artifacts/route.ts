import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { artifactCheckRoute } from '@/lib/api/contracts/policies';
import { artifactCheck } from '@/lib/services/cookbooks';

export const dynamic = 'force-dynamic';

/**
 * ?from=<stage|rev:id>&to=<stage>[&cookbook=name] → { missing_artifacts: ["name identifier"…], to_requires_artifacts }:
 * the cookbooks of what `to` would run that are not on the server (the promote dialog's warning).
 */
export const GET = apiRoute(artifactCheckRoute, async (_req, { access, params, query }) => {
  const r = await artifactCheck(access, params.name, query.from, query.to, query.cookbook);
  return NextResponse.json({ missing_artifacts: r.missing, to_requires_artifacts: r.toRequiresArtifacts });
});
