'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { authedAction } from '../safe-action';
import { policyName } from '@/lib/validation/fields';
import { uploadRevision } from '@/lib/services/policies';

export const uploadRevisionAction = authedAction
  .inputSchema(z.object({ policyName, text: z.string().max(8 * 1024 * 1024), ownerTeam: z.string().max(255).optional() }))
  .action(async ({ parsedInput, ctx }) => {
    const result = await uploadRevision(ctx.access, parsedInput);
    revalidatePath('/policies');
    return result;
  });
