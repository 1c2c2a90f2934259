import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { dependentsRoute } from '@/lib/api/contracts/dependents';
import { listDependents } from '@/lib/services/dependents';

export const dynamic = 'force-dynamic';

/** Issue 48: every policy whose revision in this stage includes the policy, at any depth, with what each carries. */
export const GET = apiRoute(dependentsRoute, async (_req, { access, params }) => NextResponse.json(await listDependents(access, { stage: params.group, policy: params.name })));
