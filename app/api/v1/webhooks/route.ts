import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { createWebhookRoute, listWebhooksRoute } from '@/lib/api/contracts/guarded';
import { createWebhook, listWebhooks } from '@/lib/services/webhooks';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(listWebhooksRoute, async (_req, { access }) => NextResponse.json({ webhooks: await listWebhooks(access) }));

/** POST { name, url, events, secret?, slack? } (admin) → 201 { webhook, secret }. */
export const POST = apiRoute(createWebhookRoute, async (_req, { access, body, requestId }) => NextResponse.json(await createWebhook(access, body, requestId), { status: 201 }));
