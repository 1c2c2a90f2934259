'use server';

import { revalidatePath } from 'next/cache';
import { updateOrgSettings } from '@/lib/services/organizations';
import { ZOrgSettingsInput } from '@/lib/validation/org-settings';
import { authedAction } from '../safe-action';

export const updateOrgSettingsAction = authedAction.inputSchema(ZOrgSettingsInput).action(async ({ parsedInput, ctx }) => {
  const r = await updateOrgSettings(ctx.access, parsedInput);
  revalidatePath('/admin/clients');
  return r;
});
