'use server';

import { ZPromotePolicyInput, promotePolicy } from '@/lib/services/promotion';
import { serviceAction } from '../safe-action';

export const promotePolicyAction = serviceAction({ input: ZPromotePolicyInput.omit({ requestId: true }), run: promotePolicy, revalidate: ['/', 'layout'] });
