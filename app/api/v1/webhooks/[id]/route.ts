import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteWebhook, getWebhook } from '@/lib/services/webhooks';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (_req, { access, params }) => NextResponse.json({ webhook: await getWebhook(access, params.id) }));

export const DELETE = apiRoute(async (_req, { access, params, requestId }) => NextResponse.json(await deleteWebhook(access, params.id, requestId)));
