'use server';

import { ZPromotePoliciesInput, promotePolicies } from '@/lib/services/promotion';
import { serviceAction } from '../safe-action';

export const promotePoliciesAction = serviceAction({ input: ZPromotePoliciesInput.omit({ requestId: true }), run: promotePolicies, revalidate: ['/', 'layout'] });
