'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { setOrgAdmin } from '@/lib/services/chef-groups';
import { chefOrg } from '@/lib/chef/context';
import { authedAction } from '../safe-action';

/** Issue 23 (step 3): Admin → Users "Chef organization admin": the organization's `admins` group (audited). */
export const setOrgAdminAction = authedAction
  .inputSchema(z.object({ userId: z.string().min(1, 'is required'), orgAdmin: z.boolean({ error: 'must be true or false' }) }))
  .action(async ({ parsedInput, ctx }) => {
    const r = await setOrgAdmin(ctx.access, parsedInput.userId, parsedInput.orgAdmin, { orgName: chefOrg() });
    revalidatePath('/admin', 'layout');
    return r;
  });
