'use server';

import { revalidatePath } from 'next/cache';
import { ZPromoteWithDependentsInput, ZRebuildDependentsInput } from '@/lib/validation/dependents';
import { promoteWithDependents, rebuildDependents } from '@/lib/services/dependents';
import { authedAction } from '../safe-action';

/**
 * What /api/v1 answers for the same call: the JSON text read back (a diff's values may be lossless numbers, which
 * JSON writes as their lexemes and a server action's serializer would refuse).
 */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Issue 48: the Rebuild button (dry run: the preview; otherwise stored and moved together, or one request). */
export const rebuildDependentsAction = authedAction.inputSchema(ZRebuildDependentsInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await rebuildDependents(ctx.access, parsedInput);
  if (!parsedInput.dryRun) revalidatePath('/', 'layout');
  return asJson(result);
});

/** Issue 48: "Promote all to <next stage>" (dry run: the guard's answer for the joint move). */
export const promoteWithDependentsAction = authedAction.inputSchema(ZPromoteWithDependentsInput.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await promoteWithDependents(ctx.access, parsedInput);
  if (!parsedInput.dryRun) revalidatePath('/', 'layout');
  return asJson(result);
});
