'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { createWebhook, deleteWebhook, sendTestWebhook, ZCreateWebhook } from '@/lib/services/webhooks';
import { authedAction, serviceAction } from '../safe-action';

/** Admin: { name, url, events, secret?, slack? } → { webhook, secret } (the secret is shown once). */
export const createWebhookAction = serviceAction({ input: ZCreateWebhook, run: createWebhook, revalidate: ['/admin', 'layout'] });

export const deleteWebhookAction = authedAction.inputSchema(z.object({ id: z.string().min(1).max(100) })).action(async ({ parsedInput, ctx }) => {
  const result = await deleteWebhook(ctx.access, parsedInput.id);
  revalidatePath('/admin', 'layout');
  return result;
});

/** "Send test event": queued and handed to the worker at once. */
export const sendTestWebhookAction = authedAction.inputSchema(z.object({ id: z.string().min(1).max(100) })).action(async ({ parsedInput, ctx }) => {
  const result = await sendTestWebhook(ctx.access, parsedInput.id);
  revalidatePath('/admin', 'layout');
  return result;
});
