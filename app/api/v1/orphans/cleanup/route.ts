import { NextResponse } from 'next/server';
import { z } from 'zod';
import { apiRoute, readJson } from '@/lib/api/route';
import { cleanupOrphans } from '@/lib/services/delete-policy';
import { parseInput } from '@/lib/services/internal/parse';

export const dynamic = 'force-dynamic';

const ZBody = z.object({ policy: z.string().optional(), keep_latest: z.number().int().min(0).optional(), dry_run: z.boolean().optional() }).strict();

/** Admin only: delete revisions active in no stage. Body: { policy?, keep_latest?, dry_run? }. */
export const POST = apiRoute(async (req, { access, requestId }) => {
  const b = parseInput(ZBody, await readJson(req));
  return NextResponse.json(await cleanupOrphans(access, { policy: b.policy, keepLatest: b.keep_latest, dryRun: b.dry_run, requestId }));
});
