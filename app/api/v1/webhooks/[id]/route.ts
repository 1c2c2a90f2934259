import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteWebhookRoute, getWebhookRoute } from '@/lib/api/contracts/guarded';
import { deleteWebhook, getWebhook } from '@/lib/services/webhooks';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getWebhookRoute, async (_req, { access, params }) => NextResponse.json({ webhook: await getWebhook(access, params.id) }));

export const DELETE = apiRoute(deleteWebhookRoute, async (_req, { access, params, requestId }) => NextResponse.json(await deleteWebhook(access, params.id, requestId)));
