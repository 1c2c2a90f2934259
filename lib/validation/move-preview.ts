/**
 * Issue 29's dry run of a move (issue 22: one schema per input): the fields of "what would this move
 * do", and the rule tying them to the kind of move, once. The HTTP contract derives its snake_case body
 * from these fields (`wireBody`) and checks the same rule under the client's names; the service takes
 * the parsed result.
 */
import { z } from 'zod';
import { chefName, cookbookName, revisionId, stageName } from './fields';

export const MOVE_KINDS = ['promote', 'promote-cookbook', 'rollback'] as const;

/** The fields, without the cross-field rule (what `wireBody` derives the HTTP body from). */
export const ZPreviewMoveFields = z.object({
  policy: chefName(),
  /** The stage the pointer would move in. */
  stage: chefName(),
  kind: z.enum(MOVE_KINDS, { error: "must be 'promote', 'promote-cookbook' or 'rollback'" }).describe('What the move is'),
  /** promote / promote-cookbook: the source stage, or rev:<id> (promote only) for a revision that runs nowhere yet. */
  from: stageName.optional().describe("promote / promote-cookbook: the source stage, or 'rev:<revision_id>' (promote only) for a revision that runs nowhere yet"),
  cookbook: cookbookName.optional().describe('promote-cookbook: the cookbook taken from `from`'),
  /** rollback: back to this revision. */
  toRevisionId: revisionId.optional().describe('rollback: the revision the stage held before'),
  /** What the caller saw in the stage (null: nothing); only the cookbook promotion derives from it. */
  expectedRevisionId: revisionId.nullable().optional().describe('promote-cookbook: the revision the caller saw in the stage (null: none)'),
});

type MoveFields = Pick<z.output<typeof ZPreviewMoveFields>, 'kind' | 'from' | 'cookbook' | 'toRevisionId'>;

/** Which field each kind of move needs: the one cross-field rule, as (field, message) pairs. */
export function previewMoveProblems(v: MoveFields): { field: keyof MoveFields; message: string }[] {
  const out: { field: keyof MoveFields; message: string }[] = [];
  if ((v.kind === 'promote' || v.kind === 'promote-cookbook') && !v.from) out.push({ field: 'from', message: `is required for kind '${v.kind}'` });
  if (v.kind === 'promote-cookbook' && !v.cookbook) out.push({ field: 'cookbook', message: "is required for kind 'promote-cookbook'" });
  if (v.kind === 'rollback' && !v.toRevisionId) out.push({ field: 'toRevisionId', message: "is required for kind 'rollback'" });
  return out;
}

/** The whole input, as a service caller gives it (fields named in camelCase). */
export const ZPreviewMoveInput = ZPreviewMoveFields.superRefine((v, ctx) => {
  for (const p of previewMoveProblems(v)) ctx.addIssue({ code: 'custom', path: [p.field], message: p.message });
});
export type PreviewMoveInput = z.output<typeof ZPreviewMoveInput>;
