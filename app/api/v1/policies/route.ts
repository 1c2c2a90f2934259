import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listPoliciesRoute } from '@/lib/api/contracts/policies';
import { assertCan } from '@/lib/auth/permissions';
import { chefPolicyList } from '@/lib/db/queries/policies';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(listPoliciesRoute, async (_req, { access }) => {
  assertCan(access, 'policy.read');
  return NextResponse.json(await chefPolicyList());
});
