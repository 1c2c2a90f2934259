import { type ApiRoute, handle, raw } from '@/lib/api/envelope';
import { composeRoute } from '@/lib/api/contracts/policies';
import { composePolicy } from '@/lib/services/compose';
import { serializeJson } from '@/lib/domain';

// /api/v1/policies/[name]/compose
/**
 * POST { parent: { revision } | { run_list, cookbook_locks?, default_attributes?, … },
 *        includes: [{ name, source: { type: "server", policy, group | revision } | { type: "upload", lock } | { type: "git", repository, path, ref } }],
 *        save?, group?, expected_revision_id?, reason?, owner_team? }
 * → 200 merged lock and provenance (preview), 201 when saved, 409 with every conflict.
 * The body is read losslessly: the parent's attribute numbers and named-run-list order reach the composed lock as written.
 */
const onCompose = handle(composeRoute, async (_req, { access, input, body, raw: sent, requestId }) => {
  // The parent as read (validated by the contract; zod's rebuilt records would lose its key order).
  const result = await composePolicy(access, { ...body, ...input, parent: (sent as { parent: typeof body.parent }).parent, requestId });
  // Written losslessly: the previewed lock shows the number lexemes and key order it is saved (and hashed) with.
  return raw(serializeJson(result), { status: result.saved?.status ?? 200, headers: { 'content-type': 'application/json' } });
});

/** The rows of compose: one per contract. */
export const composeRoutes: ApiRoute[] = [onCompose];
