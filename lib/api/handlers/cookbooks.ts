import { type ApiRoute, handle, json } from '@/lib/api/envelope';
import { artifactCheckRoute } from '@/lib/api/contracts/policies';
import { artifactCheck } from '@/lib/services/cookbooks';

// /api/v1/policies/[name]/artifacts
/**
 * ?from=<stage|rev:id>&to=<stage>[&cookbook=name] → { missing_artifacts: ["name identifier"…], to_requires_artifacts }:
 * the cookbooks of what `to` would run that are not on the server (the promote dialog's warning).
 */
const onArtifactCheck = handle(artifactCheckRoute, async (_req, { access, params, query }) => {
  const r = await artifactCheck(access, params.name, query.from, query.to, query.cookbook);
  return json({ missing_artifacts: r.missing, to_requires_artifacts: r.toRequiresArtifacts });
});

/** The rows of cookbooks: one per contract. */
export const cookbooksRoutes: ApiRoute[] = [onArtifactCheck];
