import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteOrganizationRoute, getOrganizationRoute } from '@/lib/api/contracts/organizations';
import { organizationJson } from '@/lib/api/org-members';
import { deleteOrganization, getOrganization } from '@/lib/services/organizations';

export const dynamic = 'force-dynamic';

/** One organization (administrators and its members; issue 23, step 4). */
export const GET = apiRoute(getOrganizationRoute, async (_req, { access, params }) => NextResponse.json(organizationJson(await getOrganization(access, params.org))));

/** Administrators: delete an organization (not the home one) with its clients, memberships and groups. */
export const DELETE = apiRoute(deleteOrganizationRoute, async (_req, { access, params, requestId }) => NextResponse.json(organizationJson(await deleteOrganization(access, params.org, { requestId }))));
