/**
 * The inputs of the guarded-stage writes (issue 15), one definition each: the server actions parse
 * with them, the /api/v1 bodies are derived from them (lib/api/contracts/guarded.ts, `wireBody`),
 * and the services (lib/services/guards/settings.ts) take their parsed output. Pure zod, so the
 * contracts and the OpenAPI generator load them without the database.
 */
import { z } from 'zod';
import { MAX_APPROVALS, NAME_PATTERN } from '@/lib/domain';

const stageName = z.string().regex(NAME_PATTERN, 'must be a stage name');

const principal = z.string().trim().regex(/^(user|team):.+$/, 'must be "user:<email>" or "team:<name>"');

/** The one definition of a protection's input rules: the server action parses with it, the API body is derived from it (lib/api/contracts/guarded.ts). */
export const ZSetStageProtection = z.object({
  stage: stageName,
  /** false removes the protection (and keeps the approver grants). */
  protected: z.boolean().optional().describe('false lifts the protection'),
  approvalsRequired: z.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 or more').max(MAX_APPROVALS, `must be at most ${MAX_APPROVALS}`).describe('Approvals every change needs (0: only the rules decide)'),
  /** Checked by the rules engine (validateApprovalRules: each rule, its patterns). */
  rules: z.array(z.unknown()).max(50, 'may hold at most 50 rules').optional().describe('Approval rules (see ApprovalRule); checked by the rules engine'),
  /** Replaces the approver list when given. */
  approvers: z.array(principal).max(200).optional().describe('Replaces the approver grants'),
  requestId: z.string().max(100).optional(),
});

export const ZSetApprover = z.object({
  stage: stageName,
  subject: z.discriminatedUnion('type', [
    z.object({ type: z.literal('user'), email: z.string().trim().toLowerCase().email('must be an email address') }),
    z.object({ type: z.literal('team'), name: z.string().trim().min(1, 'is required') }),
  ]),
  approver: z.boolean(),
  requestId: z.string().max(100).optional(),
});

/** An ISO 8601 date-time (UTC), as a Date; a malformed one is named by validateFreezeWindow. */
const isoDateTime = (what: string) =>
  z
    .string({ error: 'is required: an ISO 8601 date-time, e.g. 2026-12-24T00:00:00Z' })
    .describe(what)
    .transform((v) => new Date(v));
/** The one definition of a freeze window's input rules: the server action parses with it, the API body is derived from it (lib/api/contracts/guarded.ts). */
export const ZAddFreeze = z.object({
  stage: stageName,
  startsAt: isoDateTime('Start (inclusive)'),
  endsAt: isoDateTime('End (exclusive)'),
  reason: z.string().trim().min(1, 'is required: say why the stage is frozen').max(500, 'is at most 500 characters'),
  weekly: z.boolean({ error: 'must be true or false' }).optional(),
  requestId: z.string().max(100).optional(),
});

export const ZDeleteFreeze = z.object({ stage: stageName, id: z.string().min(1).max(100), requestId: z.string().max(100).optional() });

