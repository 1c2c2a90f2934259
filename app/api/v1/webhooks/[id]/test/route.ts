import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { testWebhookRoute } from '@/lib/api/contracts/guarded';
import { sendTestWebhook } from '@/lib/services/webhooks';

export const dynamic = 'force-dynamic';

/** POST — queue a `test` event to this subscription (admin) → 202. */
export const POST = apiRoute(testWebhookRoute, async (_req, { access, params, requestId }) => NextResponse.json(await sendTestWebhook(access, params.id, requestId), { status: 202 }));
