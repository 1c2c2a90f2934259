'use server';

import { z } from 'zod';
import { serviceAction } from '../safe-action';
import { policyName } from '@/lib/validation/fields';
import { uploadRevision } from '@/lib/services/policies';

export const uploadRevisionAction = serviceAction({ input: z.object({ policyName, text: z.string().max(8 * 1024 * 1024), ownerTeam: z.string().max(255).optional() }), run: uploadRevision, revalidate: '/policies' });
