'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { chefOrg } from '@/lib/config';
import { deleteClient, rotateValidatorFor } from '@/lib/services/clients';
import { KEY_NAME } from '@/lib/auth/key-pairs';
import { createOwnKey, deleteOwnKey, expireOwnKey, registerOwnKey } from '@/lib/services/keys';
import { authedAction, serviceAction } from '../safe-action';

const keyName = z.string().regex(KEY_NAME, "may contain only letters, digits, '.', '_' and '-' (1 to 255)");
const expiresAt = z.string().datetime({ offset: true, message: 'must be a date and time' }).nullable().optional();

export const createOwnKeyAction = serviceAction({ input: z.object({ name: keyName, expiresAt }), run: createOwnKey, revalidate: '/connect' });

export const registerOwnKeyAction = serviceAction({ input: z.object({ name: keyName, publicKey: z.string().min(1, 'is required').max(20_000, 'is at most 20000 characters'), expiresAt }), run: registerOwnKey, revalidate: '/connect' });

export const expireOwnKeyAction = authedAction.inputSchema(z.object({ name: keyName })).action(async ({ parsedInput, ctx }) => {
  await expireOwnKey(ctx.access, parsedInput.name);
  revalidatePath('/connect');
  return { ok: true };
});

export const deleteOwnKeyAction = authedAction.inputSchema(z.object({ name: keyName })).action(async ({ parsedInput, ctx }) => {
  await deleteOwnKey(ctx.access, parsedInput.name);
  revalidatePath('/connect');
  return { ok: true };
});

export const rotateValidatorAction = authedAction.inputSchema(z.object({})).action(async ({ ctx }) => {
  const r = await rotateValidatorFor(ctx.access, chefOrg());
  revalidatePath('/admin/clients');
  return { name: r.name, privateKey: r.privateKey };
});

export const deleteClientAction = authedAction.inputSchema(z.object({ name: z.string().min(1).max(255) })).action(async ({ parsedInput, ctx }) => {
  await deleteClient(ctx.access, parsedInput.name);
  revalidatePath('/admin/clients');
  return { ok: true };
});
