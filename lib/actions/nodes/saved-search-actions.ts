'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { deleteSavedSearch, saveSearch, SAVED_SEARCH_NAME_MAX, SAVED_SEARCH_QUERY_MAX } from '@/lib/services/search';
import { authedAction, serviceAction } from '../safe-action';

/** Issue 25: a user's saved node searches (lib/services/search/nodes-page.ts checks the query parses, and audits). */
export const saveSearchAction = serviceAction({ input: z.object({ name: z.string().trim().min(1, 'Give the search a name').max(SAVED_SEARCH_NAME_MAX), query: z.string().trim().min(1, 'Nothing to save: type a query first').max(SAVED_SEARCH_QUERY_MAX) }), run: saveSearch, revalidate: '/nodes' });

export const deleteSavedSearchAction = authedAction.inputSchema(z.object({ id: z.string().min(1).max(100) })).action(async ({ parsedInput, ctx }) => {
  await deleteSavedSearch(ctx.access, parsedInput.id);
  revalidatePath('/nodes');
  return parsedInput;
});
