'use server';

import { markRevisionBad, unmarkRevisionBad, ZMarkBad, ZUnmarkBad } from '@/lib/services/guards';
import { serviceAction } from '../safe-action';

/** Mark a revision bad: { policy, revisionId, reason }. */
export const markBadAction = serviceAction({ input: ZMarkBad.omit({ requestId: true }), run: markRevisionBad, revalidate: ['/', 'layout'] });

/** Unmark: { policy, revisionId, reason? }. */
export const unmarkBadAction = serviceAction({ input: ZUnmarkBad.omit({ requestId: true }), run: unmarkRevisionBad, revalidate: ['/', 'layout'] });
