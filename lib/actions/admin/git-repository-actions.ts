'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { deleteGitRepository, registerGitRepository, ZRegisterGitRepositoryInput } from '@/lib/services/compose';
import { authedAction } from '../safe-action';
import { repositoryName } from '@/lib/validation/fields';

export const registerGitRepositoryAction = authedAction.inputSchema(ZRegisterGitRepositoryInput).action(async ({ parsedInput, ctx }) => {
  const r = await registerGitRepository(ctx.access, parsedInput);
  revalidatePath('/admin/git');
  return { name: r.repository.name, created: r.created };
});

export const deleteGitRepositoryAction = authedAction.inputSchema(z.object({ name: repositoryName })).action(async ({ parsedInput, ctx }) => {
  await deleteGitRepository(ctx.access, parsedInput.name);
  revalidatePath('/admin/git');
  return { name: parsedInput.name };
});
