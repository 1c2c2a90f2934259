'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { createInvitation, orgScope } from '@/lib/services/organizations';
import { authedAction } from '../safe-action';

/**
 * Issue 43: Admin → Organizations "Invite": an organization's admins (and administrators) invite a user by Chef
 * name or e-mail, as `POST /organizations/O/association_requests` (`knife org user add` without the accept): the
 * user becomes a member when they accept it in the console or with knife (audited `org.invite`).
 */
export const inviteUserAction = authedAction
  .inputSchema(
    z.object({
      org: z.string().min(1, 'is required'),
      user: z.string().trim().min(1, 'is required: a Chef user name or an e-mail address').max(255, 'is at most 255 characters'),
    }),
  )
  .action(async ({ parsedInput, ctx }) => {
    const { actor, org } = await orgScope(ctx.access, parsedInput.org);
    const ref = parsedInput.user.includes('@') ? { email: parsedInput.user } : { username: parsedInput.user };
    const r = await createInvitation(actor, ref, org);
    revalidatePath('/admin', 'layout');
    return { id: r.id, organization: r.organization, email: r.user.email };
  });
