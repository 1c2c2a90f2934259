import { NextResponse } from 'next/server';
import { apiRoute, readJson } from '@/lib/api/route';
import { badRequest } from '@/lib/errors';
import { rollback } from '@/lib/services/rollback';

export const dynamic = 'force-dynamic';

/** POST { to_revision_id, expected_revision_id, reason } — back to a revision this stage held before. */
export const POST = apiRoute(async (req, { access, params, requestId }) => {
  const b = (await readJson(req)) as Record<string, unknown> | null;
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw badRequest('Body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  const result = await rollback(access, {
    policy: params.name,
    group: params.group,
    toRevisionId: b.to_revision_id as string,
    expectedRevisionId: (b.expected_revision_id ?? undefined) as string | null,
    reason: b.reason as string,
    requestId,
  });
  return NextResponse.json(result);
});
