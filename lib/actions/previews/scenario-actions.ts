'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { deleteScenario, saveScenario, ZSaveScenarioInput } from '@/lib/services/ordering';
import { authedAction } from '../safe-action';

export const saveScenarioAction = authedAction.inputSchema(ZSaveScenarioInput).action(async ({ parsedInput, ctx }) => {
  const r = await saveScenario(ctx.access, parsedInput);
  revalidatePath('/ordering');
  return r;
});

export const deleteScenarioAction = authedAction.inputSchema(z.object({ id: z.string().min(1) })).action(async ({ parsedInput, ctx }) => {
  const r = await deleteScenario(ctx.access, parsedInput.id);
  revalidatePath('/ordering');
  return r;
});
