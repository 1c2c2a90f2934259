import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { getGroupRoute, updateGroupRoute } from '@/lib/api/contracts/organizations';
import { orgScope, getGroup, updateGroup, type GroupDto } from '@/lib/services/organizations';

export const dynamic = 'force-dynamic';

const groupJson = (g: GroupDto) => ({ name: g.name, users: g.users, clients: g.clients, groups: g.groups, actors: g.actors });

/** One of the organization's groups (issue 23, step 3). */
export const GET = apiRoute(getGroupRoute, async (_req, { access, params }) => {
  const { actor, org } = await orgScope(access, params.org);
  return NextResponse.json(groupJson(await getGroup(actor, params.group, org)));
});

/** Administrators and org admins: replace a group's members. */
export const PUT = apiRoute(updateGroupRoute, async (_req, { access, params, body, requestId }) => {
  const { actor, org } = await orgScope(access, params.org);
  return NextResponse.json(groupJson(await updateGroup(actor, params.group, body, { ...org, requestId })));
});
