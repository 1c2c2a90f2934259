'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { createOrganization } from '@/lib/services/organizations';
import { authedAction } from '../safe-action';

/**
 * Issue 23 (step 4): Admin → Organizations "New organization". The service checks the fields (erchef's rules; a
 * refused field comes back under its own name, `name` or `full_name`) and makes the organization, its groups and
 * its validator in one audited transaction. The validator's private key is answered once and never stored.
 */
export const createOrganizationAction = authedAction
  .inputSchema(z.object({ name: z.string({ error: 'must be a string' }), full_name: z.string({ error: 'must be a string' }) }))
  .action(async ({ parsedInput, ctx }) => {
    const { organization, validator } = await createOrganization(ctx.access, { name: parsedInput.name, full_name: parsedInput.full_name });
    revalidatePath('/admin', 'layout');
    return { name: organization.name, fullName: organization.fullName, validator: { name: validator.name, privateKey: validator.privateKey } };
  });
