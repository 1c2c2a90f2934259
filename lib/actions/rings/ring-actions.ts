'use server';

import { pauseRingRollout, resumeRingRollout, rollBackRingRollout, startRingRollout, widenRingRollout, ZRingAction, ZStartRing } from '@/lib/services/rings';
import { serviceAction } from '../safe-action';

/** Issue 30: the console's ringed rollout actions; each calls the same service as /api/v1/rings. */
const ZAction = ZRingAction.omit({ requestId: true });

export const startRingAction = serviceAction({ input: ZStartRing.omit({ requestId: true }), run: startRingRollout, revalidate: ['/', 'layout'] });

export const widenRingAction = serviceAction({ input: ZAction, run: widenRingRollout, revalidate: ['/', 'layout'] });

export const pauseRingAction = serviceAction({ input: ZAction, run: pauseRingRollout, revalidate: ['/', 'layout'] });

export const resumeRingAction = serviceAction({ input: ZAction, run: resumeRingRollout, revalidate: ['/', 'layout'] });

export const rollBackRingAction = serviceAction({ input: ZAction, run: rollBackRingRollout, revalidate: ['/', 'layout'] });
