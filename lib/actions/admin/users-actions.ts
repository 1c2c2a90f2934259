'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import {
  createTeam,
  createUser,
  setTeamMembership,
  signOutEverywhere,
  updateUser,
  ZCreateUserInput,
  ZMembershipInput,
  ZSignOutEverywhereInput,
  ZTeamInput,
  ZUpdateUserInput,
  createApiToken,
  ZCreateApiTokenInput,
  revokeApiToken,
} from '@/lib/services/users';
import { authedAction } from '../safe-action';

export const createUserAction = authedAction.inputSchema(ZCreateUserInput).action(async ({ parsedInput, ctx }) => {
  const r = await createUser(ctx.access, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});

export const updateUserAction = authedAction.inputSchema(ZUpdateUserInput).action(async ({ parsedInput, ctx }) => {
  const r = await updateUser(ctx.access, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});

export const signOutEverywhereAction = authedAction.inputSchema(ZSignOutEverywhereInput).action(async ({ parsedInput, ctx }) => {
  const r = await signOutEverywhere(ctx.access, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});

export const createTeamAction = authedAction.inputSchema(ZTeamInput).action(async ({ parsedInput, ctx }) => {
  const r = await createTeam(ctx.access, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});

export const setTeamMembershipAction = authedAction.inputSchema(ZMembershipInput).action(async ({ parsedInput, ctx }) => {
  const r = await setTeamMembership(ctx.access, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});

/** Tokens for oneself (admins may name another user). The secret is returned once. */
export const createTokenAction = authedAction
  .inputSchema(ZCreateApiTokenInput.extend({ userEmail: z.union([z.literal(''), ZCreateApiTokenInput.shape.userEmail]).optional() }))
  .action(async ({ parsedInput, ctx }) => {
    const r = await createApiToken(ctx.access, { userEmail: parsedInput.userEmail || ctx.access.email, name: parsedInput.name, expiresInDays: parsedInput.expiresInDays });
    revalidatePath('/admin/tokens');
    return r;
  });

export const revokeTokenAction = authedAction.inputSchema(z.object({ id: z.string().min(1) })).action(async ({ parsedInput, ctx }) => {
  const r = await revokeApiToken(ctx.access, { id: parsedInput.id });
  revalidatePath('/admin/tokens');
  return r;
});
