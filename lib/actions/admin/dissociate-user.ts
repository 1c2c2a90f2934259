'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { dissociateUser } from '@/lib/services/org-members';
import { chefOrg } from '@/lib/chef/context';
import { authedAction } from '../safe-action';

/** Issue 23: Admin → Users "Remove from organization" (after a confirmation): the user stops being a member (audited). */
export const dissociateUserAction = authedAction.inputSchema(z.object({ userId: z.string().min(1, 'is required') })).action(async ({ parsedInput, ctx }) => {
  const u = await dissociateUser(ctx.access, { userId: parsedInput.userId }, { orgName: chefOrg() });
  revalidatePath('/admin', 'layout');
  return { email: u.email };
});
