'use server';

import { ZPromotePolicyInput } from '@/lib/services/promote-policy';
import { promotePolicy } from '@/lib/services/promote-policy';
import { serviceAction } from '../safe-action';

export const promotePolicyAction = serviceAction({ input: ZPromotePolicyInput.omit({ requestId: true }), run: promotePolicy, revalidate: ['/', 'layout'] });
