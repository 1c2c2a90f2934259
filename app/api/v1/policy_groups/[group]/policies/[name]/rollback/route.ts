import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { rollbackRoute } from '@/lib/api/contracts/promotion';
import { rollback } from '@/lib/services/rollback';

export const dynamic = 'force-dynamic';

/** POST { to_revision_id, expected_revision_id, reason, override_reason? } — back to a revision this stage held before. */
export const POST = apiRoute(rollbackRoute, async (_req, { access, params, body, requestId }) =>
  NextResponse.json(await rollback(access, { ...body, policy: params.name, group: params.group, requestId })),
);
