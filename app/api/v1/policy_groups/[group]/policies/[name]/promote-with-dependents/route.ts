import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { promoteWithDependentsRoute } from '@/lib/api/contracts/dependents';
import { promoteWithDependents } from '@/lib/services/dependents';

export const dynamic = 'force-dynamic';

/** Issue 48: the policy and its dependents into the next stage together (dry_run: the guard's answer). 202: one request covers them all. */
export const POST = apiRoute(promoteWithDependentsRoute, async (_req, { access, input, body, requestId }) => {
  const result = await promoteWithDependents(access, { ...body, ...input, requestId });
  return NextResponse.json(result, { status: result.request ? 202 : 200 });
});
