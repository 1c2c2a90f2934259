import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { getSettingsRoute, putSettingsRoute } from '@/lib/api/contracts/admin';
import { orgSettings, updateOrgSettings } from '@/lib/services/organizations';

export const dynamic = 'force-dynamic';

/** The organization's settings (every signed-in user may read them). */
export const GET = apiRoute(getSettingsRoute, async () => NextResponse.json(await orgSettings()));

/** Admin: PUT { stage_isolation } (audited). */
export const PUT = apiRoute(putSettingsRoute, async (_req, { access, body, requestId }) => NextResponse.json(await updateOrgSettings(access, body, requestId)));
