/** Contracts of the promotion routes: promote, rollback, promote one cookbook. */
import { z } from 'zod';
import { defineRoute } from '../contract';
import { expectedRevisionId, overrideReason, requiredReason, revisionId } from '@/lib/validation/fields';

const stageAndPolicy = { group: 'Stage name', name: 'Policy name' };

export const rollbackRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/policies/{name}/rollback',
  summary: 'Point a stage back at a revision it held before (stage.promote); a written reason is required',
  params: stageAndPolicy,
  body: z
    .object({
      to_revision_id: revisionId,
      expected_revision_id: expectedRevisionId,
      reason: requiredReason('a rollback'),
      override_reason: overrideReason.optional(),
    })
    .strict()
    .transform((b) => ({ toRevisionId: b.to_revision_id, expectedRevisionId: b.expected_revision_id, reason: b.reason, overrideReason: b.override_reason })),
  responses: {
    200: 'The pointer moved (or already pointed there): { from_revision_id, to_revision_id, changed, … }',
    400: 'A field is invalid, or the stage never ran that revision (pointer /to_revision_id)',
    404: 'No such stage or policy',
    409: 'The stage changed since the caller looked (expected_revision_id), or cookbook artifacts are missing without an override reason',
  },
});
