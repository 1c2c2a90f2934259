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
import { authedAction, serviceAction } from '../safe-action';

export const createUserAction = serviceAction({ input: ZCreateUserInput, run: createUser, revalidate: ['/admin', 'layout'] });

export const updateUserAction = serviceAction({ input: ZUpdateUserInput, run: updateUser, revalidate: ['/admin', 'layout'] });

export const signOutEverywhereAction = serviceAction({ input: ZSignOutEverywhereInput, run: signOutEverywhere, revalidate: ['/admin', 'layout'] });

export const createTeamAction = serviceAction({ input: ZTeamInput, run: createTeam, revalidate: ['/admin', 'layout'] });

export const setTeamMembershipAction = serviceAction({ input: ZMembershipInput, run: setTeamMembership, revalidate: ['/admin', 'layout'] });

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
