import { NextResponse } from 'next/server';
import { z } from 'zod';
import { apiRoute, readJson } from '@/lib/api/route';
import { badRequest } from '@/lib/errors';
import { cleanupOrphans } from '@/lib/services/delete-policy';
import { zodErrors } from '@/lib/services/internal/zod-errors';

export const dynamic = 'force-dynamic';

const ZBody = z.object({ policy: z.string().optional(), keep_latest: z.number().int().min(0).optional(), dry_run: z.boolean().optional() }).strict();

/** Admin only: delete revisions active in no stage. Body: { policy?, keep_latest?, dry_run? }. */
export const POST = apiRoute(async (req, { access, requestId }) => {
  const parsed = ZBody.safeParse(await readJson(req));
  if (!parsed.success) {
    const errors = zodErrors(parsed.error);
    throw badRequest(errors[0].message, errors);
  }
  const b = parsed.data;
  return NextResponse.json(await cleanupOrphans(access, { policy: b.policy, keepLatest: b.keep_latest, dryRun: b.dry_run, requestId }));
});
