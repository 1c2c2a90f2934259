import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deletePolicyRoute, getPolicyRoute } from '@/lib/api/contracts/policies';
import { assertCan } from '@/lib/auth/permissions';
import { chefPolicy } from '@/lib/db/queries/policies';
import { deletePolicy } from '@/lib/services/policies';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getPolicyRoute, async (_req, { access, params }) => {
  assertCan(access, 'policy.read');
  return NextResponse.json(await chefPolicy(params.name));
});

export const DELETE = apiRoute(deletePolicyRoute, async (_req, { access, params, requestId }) => NextResponse.json(await deletePolicy(access, params.name, requestId)));
