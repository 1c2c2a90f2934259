'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { createDataBag, createDataBagItem, deleteDataBag, deleteDataBagItem, setDataBagGrant, setDataBagStages, updateDataBagItem } from '@/lib/services/data-bags';
import { authedAction } from '../safe-action';

/** The same rules as the Chef API (lib/services/data-bags/data-bags.ts checks them again, with Chef's messages). */
const bagName = z.string().regex(/^[A-Za-z0-9_.:-]{1,255}$/, 'A-Z, a-z, 0-9, _, :, . or -, at most 255 characters');

export const createDataBagAction = authedAction.inputSchema(z.object({ name: bagName })).action(async ({ parsedInput, ctx }) => {
  const name = await createDataBag(ctx.access, { name: parsedInput.name });
  revalidatePath('/data-bags');
  return { name };
});

export const deleteDataBagAction = authedAction.inputSchema(z.object({ bag: bagName })).action(async ({ parsedInput, ctx }) => {
  await deleteDataBag(ctx.access, parsedInput.bag);
  revalidatePath('/data-bags');
  return { bag: parsedInput.bag };
});

/** Creates an item (`id` absent: taken from the JSON) or replaces item `id`; `json` is stored exactly as typed. */
export const saveDataBagItemAction = authedAction
  .inputSchema(z.object({ bag: bagName, id: bagName.optional(), json: z.string().min(2, 'Enter the item as a JSON object') }))
  .action(async ({ parsedInput, ctx }) => {
    const { bag, id, json } = parsedInput;
    const doc = id === undefined ? await createDataBagItem(ctx.access, bag, json) : await updateDataBagItem(ctx.access, bag, id, json);
    revalidatePath(`/data-bags/${bag}`);
    return { bag, id: doc.id as string, created: id === undefined };
  });

export const deleteDataBagItemAction = authedAction.inputSchema(z.object({ bag: bagName, item: bagName })).action(async ({ parsedInput, ctx }) => {
  await deleteDataBagItem(ctx.access, parsedInput.bag, parsedInput.item);
  revalidatePath(`/data-bags/${parsedInput.bag}`);
  return parsedInput;
});

export const setDataBagStagesAction = authedAction.inputSchema(z.object({ bag: bagName, stages: z.array(z.string().max(255)).max(100) })).action(async ({ parsedInput, ctx }) => {
  const stages = await setDataBagStages(ctx.access, parsedInput.bag, parsedInput.stages);
  revalidatePath(`/data-bags/${parsedInput.bag}`);
  return { bag: parsedInput.bag, stages };
});

export const setDataBagGrantAction = authedAction
  .inputSchema(z.object({ bag: bagName, teamId: z.string().min(1).max(100), level: z.enum(['read', 'write', 'none']) }))
  .action(async ({ parsedInput, ctx }) => {
    await setDataBagGrant(ctx.access, parsedInput.bag, parsedInput.teamId, parsedInput.level);
    revalidatePath(`/data-bags/${parsedInput.bag}`);
    return parsedInput;
  });
