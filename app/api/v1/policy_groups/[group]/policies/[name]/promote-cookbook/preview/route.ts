import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { promoteCookbookPreviewRoute } from '@/lib/api/contracts/promote-cookbook-preview';
import { promoteCookbook } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** GET ?from=&cookbook=&expected_revision_id= → the dry run of promoting one cookbook into this stage (nothing stored). */
export const GET = apiRoute(promoteCookbookPreviewRoute, async (_req, { access, input, query, requestId }) =>
  NextResponse.json(await promoteCookbook(access, { ...query, ...input, dryRun: true, requestId })),
);
