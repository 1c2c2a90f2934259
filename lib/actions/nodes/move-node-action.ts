'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { moveNode } from '@/lib/services/nodes';
import { chefName, stageName } from '@/lib/validation/fields';
import { authedAction } from '../safe-action';

/** Issue 41: a user moves a node to another stage (node.report on both; lib/services/nodes/nodes.ts moveNode). */
export const moveNodeAction = authedAction.inputSchema(z.object({ name: chefName(), stage: stageName })).action(async ({ parsedInput, ctx }) => {
  const r = await moveNode(ctx.access, parsedInput.name, parsedInput.stage);
  revalidatePath(`/nodes/${encodeURIComponent(parsedInput.name)}`);
  return { ...parsedInput, ...r };
});
