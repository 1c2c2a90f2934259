import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { getTeamIdpGroupsRoute, putTeamIdpGroupsRoute } from '@/lib/api/contracts/admin';
import { setTeamIdpGroups, teamIdpGroups } from '@/lib/services/users';

export const dynamic = 'force-dynamic';

/** Issue 45: GET a team's identity-provider groups (admin). */
export const GET = apiRoute(getTeamIdpGroupsRoute, async (_req, { access, params }) => NextResponse.json(await teamIdpGroups(access, params.team)));

/** Issue 45: PUT { groups: [...] } (admin; audited). */
export const PUT = apiRoute(putTeamIdpGroupsRoute, async (_req, { access, params, body, requestId }) => NextResponse.json(await setTeamIdpGroups(access, { team: params.team, groups: body.groups }, requestId)));
