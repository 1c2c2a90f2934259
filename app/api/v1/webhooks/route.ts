import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { createWebhook, listWebhooks, type CreateWebhookInput } from '@/lib/services/webhooks';

export const dynamic = 'force-dynamic';

/** GET: subscriptions (admin). */
export const GET = apiRoute(async (_req, { access }) => NextResponse.json({ webhooks: await listWebhooks(access) }));

/** POST { name, url, events: [...], secret?, slack? } (admin) → 201 { webhook, secret } (the secret is returned only here). */
export const POST = apiRoute(async (req, { access, requestId }) => {
  const b = await readJsonObject(req);
  return NextResponse.json(await createWebhook(access, b as CreateWebhookInput, requestId), { status: 201 });
});
