/**
 * The inputs of marking and unmarking a bad revision (issue 15), one definition each: the server actions
 * parse with them, the /api/v1 contract (lib/api/contracts/guarded.ts) derives its body and path fields
 * from them, and lib/services/guards/bad-revisions.ts takes their parsed output. Pure zod.
 */
import { z } from 'zod';
import { NAME_PATTERN } from '@/lib/domain';

const name = z.string().regex(NAME_PATTERN, "may contain only letters, digits, '.', '_', ':' and '-' (1 to 255)");
export const ZMarkBad = z.object({
  policy: name,
  revisionId: name,
  reason: z.string({ error: 'is required: say why the revision is bad' }).trim().min(1, 'is required: say why the revision is bad').max(1000, 'is at most 1000 characters'),
  requestId: z.string().max(100).optional(),
});
export const ZUnmarkBad = ZMarkBad.omit({ reason: true }).extend({ reason: z.string().trim().max(1000, 'is at most 1000 characters').optional() });
