'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { associateUser, organizationNamed } from '@/lib/services/organizations';
import { chefOrg } from '@/lib/config';
import { authedAction } from '../safe-action';

/**
 * Issue 23: Admin → Users "Add to organization": the user becomes a member of the home organization (administrators;
 * audited). Admin → Organizations names another organization with `org` (step 4).
 */
export const associateUserAction = authedAction
  .inputSchema(z.object({ userId: z.string().min(1, 'is required'), org: z.string().min(1, 'is required').optional() }))
  .action(async ({ parsedInput, ctx }) => {
    const u = await associateUser(ctx.access, { userId: parsedInput.userId }, await organizationNamed(parsedInput.org ?? chefOrg()));
    revalidatePath('/admin', 'layout');
    return { email: u.email };
  });
