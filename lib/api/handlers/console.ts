import { type ApiRoute, handle, publicRoute, json, raw } from '@/lib/api/envelope';
import { auditRoute } from '@/lib/api/contracts/admin';
import { assertCan } from '@/lib/auth/permissions';
import { auditCsv, listAudit } from '@/lib/db/queries/audit';
import { boardRoute, diffRoute, openApiRoute, orderingPreviewRoute, resourceMapPreviewRoute } from '@/lib/api/contracts/console';
import { loadBoard } from '@/lib/db/queries/board';
import { compare } from '@/lib/db/queries/compare';
import { openApiDocument } from '@/lib/api/openapi';
import { orderDirectives, resolveResourceMap } from '@/lib/domain';

// /api/v1/audit
/** ?actor=&stage=&policy=&action=&since=&until=&limit=&cursor=&format=csv|json */
const onAudit = handle(auditRoute, async (_req, { access, query: { format, ...filter } }) => {
  assertCan(access, 'audit.read');
  const page = await listAudit(access, filter);
  if (format === 'csv') {
    return raw(auditCsv(page.events), { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="audit.csv"' } });
  }
  return json(page);
});

// /api/v1/board
/** The stage board's data (console endpoint, not part of Chef's API). */
const onBoard = handle(boardRoute, async (_req, { access }) => json(await loadBoard(access)));

// /api/v1/diff
/** ?policy=P&from=<stage|rev:id>&to=<stage|rev:id> → the LockDiff (and, with text=true, both canonical texts). */
const onDiff = handle(diffRoute, async (_req, { access, query }) => {
  const c = await compare(access, query.policy, query.from, query.to);
  const body = query.text ? c : { policy: c.policy, from: c.from, to: c.to, takeovers: c.takeovers, missing_artifacts: c.missingArtifacts, to_requires_artifacts: c.toRequiresArtifacts, ...c.diff };
  return json(body);
});

// /api/v1/openapi.json
/** Public: the API's description is no secret, and tools fetch it before they have a token. */
const onOpenApi = publicRoute(openApiRoute, async () => json(openApiDocument()));

// /api/v1/ordering/preview
/** POST the engine input; get the ordered policies, warnings and errors. Pure computation: nothing is stored. */
const onOrderingPreview = handle(orderingPreviewRoute, async (_req, { body }) => json(orderDirectives(body)));

// /api/v1/resource-map/preview
/** POST the engine input; get the resolved classes, ranked lists with reasons, warnings and refusals. Nothing is stored. */
const onResourceMapPreview = handle(resourceMapPreviewRoute, async (_req, { body }) => json(resolveResourceMap(body)));

/** The rows of console: one per contract. */
export const consoleRoutes: ApiRoute[] = [onAudit, onBoard, onDiff, onOpenApi, onOrderingPreview, onResourceMapPreview];
