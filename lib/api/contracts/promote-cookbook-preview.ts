/** The cookbook promotion's dry run as a read (the promote dialog's dependency check): nothing is stored. */
import { z } from 'zod';
import { defineRoute, pathInput } from '../contract';
import { ZPromoteCookbookInput } from '@/lib/validation/promotion';
import { cookbookName, revisionId, stageName } from '@/lib/validation/fields';

export const promoteCookbookPreviewRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/policies/{name}/promote-cookbook/preview',
  summary: 'What promoting one cookbook from another stage would derive (stage.promote on the target): every constraint checked, nothing stored',
  params: { group: 'The target stage', name: 'Policy name' },
  pathInput: pathInput(ZPromoteCookbookInput, { policy: 'name', to: 'group' }),
  query: z
    .object({
      from: stageName,
      cookbook: cookbookName,
      /** Empty: the caller saw no revision in the target stage. */
      expected_revision_id: z.union([z.literal(''), revisionId]).describe('The revision the caller saw in the target stage (empty for none)'),
    })
    .strict()
    .transform((q) => ({ from: q.from, cookbook: q.cookbook, expectedRevisionId: q.expected_revision_id || null })),
  responses: {
    200: '{ cookbook, before, after, noop, dry_run: true, revisionId (the derived revision), baseRevisionId, diff (what it changes in the target stage) }',
    400: 'A query parameter is invalid',
    404: 'No such stage or policy, or a stage has no revision of the policy',
    409: 'The target stage changed since the caller looked (expected_revision_id)',
    422: 'A dependency constraint would not hold: every unmet one with its pointer',
  },
});
