import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { createOrganizationRoute, listOrganizationsRoute } from '@/lib/api/contracts/organizations';
import { organizationJson } from '@/lib/api/org-members';
import { createOrganization, listOrganizations } from '@/lib/services/organizations';

export const dynamic = 'force-dynamic';

/** Every organization (administrators; issue 23, step 4). */
export const GET = apiRoute(listOrganizationsRoute, async (_req, { access }) => NextResponse.json((await listOrganizations(access)).map(organizationJson)));

/** Administrators: create an organization; its validator's private key is in this answer only. */
export const POST = apiRoute(createOrganizationRoute, async (_req, { access, raw, requestId }) => {
  const { organization, validator } = await createOrganization(access, raw, { requestId });
  return NextResponse.json(
    { organization: organizationJson(organization), validator: { name: validator.name, private_key: validator.privateKey } },
    { status: 201, headers: { location: `/api/v1/organizations/${encodeURIComponent(organization.name)}`, 'cache-control': 'no-store' } },
  );
});
