import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { cleanupOrphansRoute } from '@/lib/api/contracts/admin';
import { cleanupOrphans } from '@/lib/services/policies';

export const dynamic = 'force-dynamic';

/** Admin only: delete revisions active in no stage. Body: { policy?, keep_latest?, dry_run? }. */
export const POST = apiRoute(cleanupOrphansRoute, async (_req, { access, body, requestId }) => NextResponse.json(await cleanupOrphans(access, { ...body, requestId })));
