import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { removeMemberRoute } from '@/lib/api/contracts/organizations';
import { memberJson } from '@/lib/api/org-members';
import { orgScope, dissociateUser } from '@/lib/services/organizations';

export const dynamic = 'force-dynamic';

/** Administrators, or the user themselves: end a membership (issue 23). */
export const DELETE = apiRoute(removeMemberRoute, async (_req, { access, params, requestId }) => {
  const { actor, org } = await orgScope(access, params.org);
  const ref = params.user.includes('@') ? { email: params.user } : { username: params.user };
  return NextResponse.json(memberJson(await dissociateUser(actor, ref, { ...org, requestId })));
});
