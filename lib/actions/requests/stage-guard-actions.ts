'use server';

import { addFreezeWindow, deleteFreezeWindow, setStageApprover, setStageProtection, ZAddFreeze, ZDeleteFreeze, ZSetApprover, ZSetStageProtection } from '@/lib/services/guards';
import { serviceAction } from '../safe-action';

/** Protection of a stage: { stage, protected?, approvalsRequired, rules, approvers? ("user:<email>" / "team:<name>") }. */
export const setStageProtectionAction = serviceAction({ input: ZSetStageProtection.omit({ requestId: true }), run: setStageProtection, revalidate: ['/', 'layout'] });

/** Grant or remove one approver: { stage, subject: { type: 'user', email } | { type: 'team', name }, approver }. */
export const setStageApproverAction = serviceAction({ input: ZSetApprover.omit({ requestId: true }), run: setStageApprover, revalidate: ['/', 'layout'] });

/** Add a freeze window: { stage, startsAt, endsAt (ISO, UTC), reason, weekly? }. */
export const addFreezeAction = serviceAction({ input: ZAddFreeze.omit({ requestId: true }), run: addFreezeWindow, revalidate: ['/', 'layout'] });

export const deleteFreezeAction = serviceAction({ input: ZDeleteFreeze.omit({ requestId: true }), run: deleteFreezeWindow, revalidate: ['/', 'layout'] });
