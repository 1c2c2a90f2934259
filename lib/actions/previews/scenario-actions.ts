'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { deleteScenario, saveScenario, ZSaveScenarioInput } from '@/lib/services/ordering';
import { authedAction, serviceAction } from '../safe-action';

export const saveScenarioAction = serviceAction({ input: ZSaveScenarioInput, run: saveScenario, revalidate: '/ordering' });

export const deleteScenarioAction = authedAction.inputSchema(z.object({ id: z.string().min(1) })).action(async ({ parsedInput, ctx }) => {
  const r = await deleteScenario(ctx.access, parsedInput.id);
  revalidatePath('/ordering');
  return r;
});
