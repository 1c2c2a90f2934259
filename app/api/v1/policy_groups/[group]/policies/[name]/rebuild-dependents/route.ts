import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { rebuildDependentsRoute } from '@/lib/api/contracts/dependents';
import { rebuildDependents } from '@/lib/services/dependents';

export const dynamic = 'force-dynamic';

/** Issue 48: rebuild the dependents on the revision the stage runs (dry_run: the preview). 201 stored, 202 a request opened. */
export const POST = apiRoute(rebuildDependentsRoute, async (_req, { access, input, body, requestId }) => {
  const result = await rebuildDependents(access, { ...body, ...input, requestId });
  return NextResponse.json(result, { status: result.request ? 202 : result.written ? 201 : 200 });
});
