'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { cancelInvitation, organizationNamed } from '@/lib/services/organizations';
import { authedAction } from '../safe-action';

/**
 * Issue 23: Admin → Organizations "Cancel" on a pending invitation (Chef's association request, after a
 * confirmation): the invitation is gone (audited `org.invite-cancel`), as `DELETE /organizations/O/association_requests/ID`.
 */
export const cancelInvitationAction = authedAction
  .inputSchema(z.object({ id: z.string().min(1, 'is required'), org: z.string().min(1, 'is required') }))
  .action(async ({ parsedInput, ctx }) => {
    const r = await cancelInvitation(ctx.access, parsedInput.id, await organizationNamed(parsedInput.org));
    revalidatePath('/admin', 'layout');
    return { username: r.username };
  });
