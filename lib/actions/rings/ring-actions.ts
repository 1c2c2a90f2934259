'use server';

import { revalidatePath } from 'next/cache';
import { pauseRingRollout, resumeRingRollout, rollBackRingRollout, startRingRollout, widenRingRollout, ZRingAction, ZStartRing } from '@/lib/services/rings';
import { authedAction } from '../safe-action';

/** Issue 30: the console's ringed rollout actions; each calls the same service as /api/v1/rings. */
const ZAction = ZRingAction.omit({ requestId: true });

export const startRingAction = authedAction.inputSchema(ZStartRing.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await startRingRollout(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

export const widenRingAction = authedAction.inputSchema(ZAction).action(async ({ parsedInput, ctx }) => {
  const result = await widenRingRollout(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

export const pauseRingAction = authedAction.inputSchema(ZAction).action(async ({ parsedInput, ctx }) => {
  const result = await pauseRingRollout(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

export const resumeRingAction = authedAction.inputSchema(ZAction).action(async ({ parsedInput, ctx }) => {
  const result = await resumeRingRollout(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

export const rollBackRingAction = authedAction.inputSchema(ZAction).action(async ({ parsedInput, ctx }) => {
  const result = await rollBackRingRollout(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
