/**
 * The inputs of the stage writes, one definition each: the server actions (lib/actions/admin/stage-actions.ts, set-stage-grant-action.ts)
 * parse with them, the /api/v1 body is derived from them (lib/api/contracts/stages.ts, `wireBody`), the import
 * parses with them at its edge, and lib/services/stages/manage.ts takes their parsed output. Pure zod.
 */
import { z } from 'zod';
import { grantLevel, grantSubject, requestId, stageDescription, stageName, stagePosition } from './fields';

export const ZPutStageInput = z
  .object({
    name: stageName,
    position: stagePosition.optional(),
    description: stageDescription.optional(),
    require_artifacts: z.boolean().optional().describe('Promotions into the stage need every pinned cookbook on the server (or an audited override reason)'),
    open_enrollment: z
      .boolean()
      .optional()
      .describe("Issue 41: nodes registered through the organization's plain validator may place themselves in this stage (off for a new stage; a stage validator enrolls into its own stage)"),
  })
  .strict();
export type PutStageInput = z.output<typeof ZPutStageInput>;

export const ZMoveStageInput = z.object({ name: stageName, direction: z.enum(['earlier', 'later']) }).strict();
export type MoveStageInput = z.output<typeof ZMoveStageInput>;

export const ZSetStageGrantInput = z.object({
  stage: stageName,
  subject: grantSubject,
  /** 'none' removes the grant. */
  level: grantLevel,
  requestId: requestId.optional(),
});
export type SetStageGrantInput = z.output<typeof ZSetStageGrantInput>;
