'use server';

import { revalidatePath } from 'next/cache';
import { addFreezeWindow, deleteFreezeWindow, setStageApprover, setStageProtection, ZAddFreeze, ZDeleteFreeze, ZSetApprover, ZSetStageProtection } from '@/lib/services/guards';
import { authedAction } from '../safe-action';

/** Protection of a stage: { stage, protected?, approvalsRequired, rules, approvers? ("user:<email>" / "team:<name>") }. */
export const setStageProtectionAction = authedAction.inputSchema(ZSetStageProtection.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await setStageProtection(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

/** Grant or remove one approver: { stage, subject: { type: 'user', email } | { type: 'team', name }, approver }. */
export const setStageApproverAction = authedAction.inputSchema(ZSetApprover.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await setStageApprover(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

/** Add a freeze window: { stage, startsAt, endsAt (ISO, UTC), reason, weekly? }. */
export const addFreezeAction = authedAction.inputSchema(ZAddFreeze.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await addFreezeWindow(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

export const deleteFreezeAction = authedAction.inputSchema(ZDeleteFreeze.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await deleteFreezeWindow(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
