'use server';

import { updateOrgSettings } from '@/lib/services/organizations';
import { ZOrgSettingsInput } from '@/lib/validation/org-settings';
import { serviceAction } from '../safe-action';

export const updateOrgSettingsAction = serviceAction({ input: ZOrgSettingsInput, run: updateOrgSettings, revalidate: '/admin/clients' });
