'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { setOrgAdmin, organizationNamed } from '@/lib/services/organizations';
import { chefOrg } from '@/lib/config';
import { authedAction } from '../safe-action';

/**
 * Issue 23 (step 3): Admin → Users "Chef organization admin": the home organization's `admins` group (audited).
 * Admin → Organizations names another organization with `org` (step 4).
 */
export const setOrgAdminAction = authedAction
  .inputSchema(z.object({ userId: z.string().min(1, 'is required'), orgAdmin: z.boolean({ error: 'must be true or false' }), org: z.string().min(1, 'is required').optional() }))
  .action(async ({ parsedInput, ctx }) => {
    const r = await setOrgAdmin(ctx.access, parsedInput.userId, parsedInput.orgAdmin, await organizationNamed(parsedInput.org ?? chefOrg()));
    revalidatePath('/admin', 'layout');
    return r;
  });
