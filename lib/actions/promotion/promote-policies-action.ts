'use server';

import { ZPromotePoliciesInput } from '@/lib/services/promote-policies';
import { promotePolicies } from '@/lib/services/promote-policies';
import { serviceAction } from '../safe-action';

export const promotePoliciesAction = serviceAction({ input: ZPromotePoliciesInput.omit({ requestId: true }), run: promotePolicies, revalidate: ['/', 'layout'] });
