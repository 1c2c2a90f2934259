import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { sendTestWebhook } from '@/lib/services/webhooks';

export const dynamic = 'force-dynamic';

/** POST — queue a `test` event to this subscription (admin) → 202. */
export const POST = apiRoute(async (_req, { access, params, requestId }) => NextResponse.json(await sendTestWebhook(access, params.id, requestId), { status: 202 }));
