import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { movePreviewRoute } from '@/lib/api/contracts/move-preview';
import { previewMove } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** POST { kind, from?, cookbook?, to_revision_id? } → what confirming the move would do now (issue 29; nothing stored). */
export const POST = apiRoute(movePreviewRoute, async (_req, { access, input, body }) => NextResponse.json(await previewMove(access, { ...body, ...input })));
