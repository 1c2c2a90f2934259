'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { deleteOrganization } from '@/lib/services/organizations';
import { authedAction } from '../safe-action';

/**
 * Issue 23 (step 4): Admin → Organizations "Delete" (after a confirmation naming what goes): the organization, its
 * clients and their keys, its memberships and its groups, in one audited transaction. The home organization refuses.
 */
export const deleteOrganizationAction = authedAction.inputSchema(z.object({ name: z.string().min(1, 'is required') })).action(async ({ parsedInput, ctx }) => {
  const org = await deleteOrganization(ctx.access, parsedInput.name);
  revalidatePath('/admin', 'layout');
  return { name: org.name, members: org.members, clients: org.clients };
});
