import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { assertCan } from '@/lib/auth/permissions';
import { chefPolicyList } from '@/lib/db/queries/policies';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (_req, { access }) => {
  assertCan(access, 'policy.read');
  return NextResponse.json(await chefPolicyList());
});
