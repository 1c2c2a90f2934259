'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { dissociateUser, organizationNamed } from '@/lib/services/organizations';
import { chefOrg } from '@/lib/config';
import { authedAction } from '../safe-action';

/**
 * Issue 23: Admin → Users "Remove from organization" (after a confirmation): the user stops being a member of the
 * home organization (audited). Admin → Organizations names another organization with `org` (step 4).
 */
export const dissociateUserAction = authedAction
  .inputSchema(z.object({ userId: z.string().min(1, 'is required'), org: z.string().min(1, 'is required').optional() }))
  .action(async ({ parsedInput, ctx }) => {
    const u = await dissociateUser(ctx.access, { userId: parsedInput.userId }, await organizationNamed(parsedInput.org ?? chefOrg()));
    revalidatePath('/admin', 'layout');
    return { email: u.email };
  });
