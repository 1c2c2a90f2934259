/**
 * The input of registering a git repository (issue 17, item 1), one definition: the admin action parses with it,
 * the /api/v1 contract (lib/api/contracts/admin.ts) derives its body from it, and lib/services/compose/git-repositories.ts
 * takes its parsed output (and checks the location and where credentials apply). Pure zod.
 */
import { z } from 'zod';
import { repositoryName } from './fields';

export const ZRegisterGitRepositoryInput = z
  .object({
    name: repositoryName,
    url: z.string().trim().min(1, 'is required').max(1000).describe('An http(s) URL without credentials, or a path below GIT_LOCAL_ROOT'),
    username: z.string().max(200).optional(),
    /** Password or access token; stored encrypted. */
    secret: z.string().max(2000).optional().describe('Password or access token; stored encrypted, never returned'),
  })
  .strict();
export type RegisterGitRepositoryInput = z.output<typeof ZRegisterGitRepositoryInput>;
