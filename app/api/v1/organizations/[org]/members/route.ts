import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { addMemberRoute, listMembersRoute } from '@/lib/api/contracts/organizations';
import { memberJson } from '@/lib/api/org-members';
import { orgScope, associateUser, listOrgMembers } from '@/lib/services/organizations';

export const dynamic = 'force-dynamic';

/** The organization's members (issue 23). */
export const GET = apiRoute(listMembersRoute, async (_req, { access, params }) => {
  const { actor, org } = await orgScope(access, params.org);
  return NextResponse.json((await listOrgMembers(actor, org)).map(memberJson));
});

/** Administrators: make a user a member (201; 409 for a member). */
export const POST = apiRoute(addMemberRoute, async (_req, { access, params, body, requestId }) => {
  const { actor, org } = await orgScope(access, params.org);
  const ref = body.username !== undefined ? { username: body.username } : { email: body.email! };
  return NextResponse.json(memberJson(await associateUser(actor, ref, { ...org, requestId })), { status: 201 });
});
