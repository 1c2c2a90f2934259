'use server';

import { revalidatePath } from 'next/cache';
import { badRequest } from '@/lib/errors';
import { oidcConfig } from '@/lib/authn/oidc-config';
import { linkIdentity, setTeamIdpGroups, unlinkIdentity, ZLinkIdentityInput, ZTeamGroupsInput, ZUnlinkIdentityInput } from '@/lib/services/users';
import { authedAction } from '../safe-action';

/** Issue 45, Admin → Teams: a team's identity-provider groups. */
export const setTeamIdpGroupsAction = authedAction.inputSchema(ZTeamGroupsInput).action(async ({ parsedInput, ctx }) => {
  const r = await setTeamIdpGroups(ctx.access, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});

/** Issue 45, Admin → Users: link an account to a provider identity (its subject). */
export const linkIdentityAction = authedAction.inputSchema(ZLinkIdentityInput).action(async ({ parsedInput, ctx }) => {
  const config = oidcConfig();
  if (!config) throw badRequest('Single sign-on is not configured (OIDC_ISSUER)');
  const r = await linkIdentity(ctx.access, { issuer: config.issuer }, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});

export const unlinkIdentityAction = authedAction.inputSchema(ZUnlinkIdentityInput).action(async ({ parsedInput, ctx }) => {
  const r = await unlinkIdentity(ctx.access, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});
