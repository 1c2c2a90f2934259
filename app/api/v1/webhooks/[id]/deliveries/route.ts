import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listWebhookDeliveries } from '@/lib/services/webhooks';

export const dynamic = 'force-dynamic';

/** GET ?limit= — the delivery log (each delivery with every attempt's status code and error), newest first (admin). */
export const GET = apiRoute(async (req, { access, params }) => {
  const limit = Number(new URL(req.url).searchParams.get('limit') ?? 100);
  return NextResponse.json({ deliveries: await listWebhookDeliveries(access, params.id, Number.isFinite(limit) ? limit : 100) });
});
