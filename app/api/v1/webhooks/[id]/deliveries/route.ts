import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { webhookDeliveriesRoute } from '@/lib/api/contracts/guarded';
import { listWebhookDeliveries } from '@/lib/services/webhooks';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(webhookDeliveriesRoute, async (_req, { access, params, query }) => NextResponse.json({ deliveries: await listWebhookDeliveries(access, params.id, query.limit ?? 100) }));
