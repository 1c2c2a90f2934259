'use server';

import { revalidatePath } from 'next/cache';
import { badRequest } from '@/lib/errors';
import { oidcConfig } from '@/lib/authn/oidc-config';
import { linkIdentity, setTeamIdpGroups, unlinkIdentity, ZLinkIdentityInput, ZTeamGroupsInput, ZUnlinkIdentityInput } from '@/lib/services/users';
import { authedAction, serviceAction } from '../safe-action';

/** Issue 45, Admin → Teams: a team's identity-provider groups. */
export const setTeamIdpGroupsAction = serviceAction({ input: ZTeamGroupsInput, run: setTeamIdpGroups, revalidate: ['/admin', 'layout'] });

/** Issue 45, Admin → Users: link an account to a provider identity (its subject). */
export const linkIdentityAction = authedAction.inputSchema(ZLinkIdentityInput).action(async ({ parsedInput, ctx }) => {
  const config = oidcConfig();
  if (!config) throw badRequest('Single sign-on is not configured (OIDC_ISSUER)');
  const r = await linkIdentity(ctx.access, { issuer: config.issuer }, parsedInput);
  revalidatePath('/admin', 'layout');
  return r;
});

export const unlinkIdentityAction = serviceAction({ input: ZUnlinkIdentityInput, run: unlinkIdentity, revalidate: ['/admin', 'layout'] });
