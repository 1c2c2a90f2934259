'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { respondToInvitation } from '@/lib/services/organizations';
import { authedAction } from '../safe-action';

/**
 * Issue 43: the signed-in user accepts or declines one of their own invitations to a Chef organization, as
 * `PUT /users/U/association_requests/ID` (accepting makes them a member; both audited). Only their own: the
 * service looks the invitation up under the signed-in user (another user's id is "Cannot find association request").
 */
export const respondToInvitationAction = authedAction
  .inputSchema(z.object({ id: z.string().min(1, 'is required'), response: z.enum(['accept', 'reject'], { error: "must be 'accept' or 'reject'" }) }))
  .action(async ({ parsedInput, ctx }) => {
    const r = await respondToInvitation(ctx.access, { userId: ctx.access.userId }, parsedInput.id, { response: parsedInput.response });
    // Membership changes what every page shows (the console itself, for someone who was outside it).
    revalidatePath('/', 'layout');
    return { organization: r.organization, response: parsedInput.response };
  });
