/**
 * Field schemas shared by the HTTP routes, the services and the server
 * actions: each rule (and its message) is written once here. Routes compose
 * them into snake_case request schemas, services into camelCase inputs, so a
 * policy name is checked the same way whichever door it came through.
 */
import { z } from 'zod';
import { COOKBOOK_NAME_PATTERN, NAME_PATTERN } from '@/lib/domain';
import { STAGE_LEVELS } from '@/lib/auth/permissions';

export const NAME_RULE = "may contain only letters, digits, '.', '_', ':' and '-' (1 to 255)";

/** A Chef object name (policy, stage, revision id, node, repository): Chef Server's name rule. */
export const chefName = () => z.string().regex(NAME_PATTERN, NAME_RULE);

export const policyName = chefName().describe('Policy name');
export const stageName = chefName().describe('Stage (policy group) name');
export const revisionId = chefName().describe('Revision id');
export const repositoryName = chefName().describe('The name of a git repository an administrator registered');

/** What the caller saw in the target stage: a revision id, or null for "the stage ran no revision". Required: null is an answer, absence is not. */
export const expectedRevisionId = revisionId.nullable().describe('The revision the caller saw in the target stage; null when it ran none');

export const cookbookName = z.string().regex(COOKBOOK_NAME_PATTERN, "may contain only letters, digits, '.', '_' and '-'").describe('Cookbook name');

/** A free-text reason kept in the audit log. */
export const reason = z.string().trim().max(1000, 'is at most 1000 characters');
/** A reason that must be given. */
export const requiredReason = (what: string) => z.string().trim().min(1, `is required for ${what}`).max(1000, 'is at most 1000 characters');
/** A written reason to move into a stage that requires artifacts although some are missing (audited). */
export const overrideReason = reason.describe('A written reason to go ahead although cookbook artifacts are missing (audited)');

export const requestId = z.string().max(100);

export const email = z.string().trim().toLowerCase().email('must be an email address');

export const stagePosition = z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 or more').max(10_000, 'must be at most 10000');
export const stageDescription = z.string().max(500, 'is at most 500 characters');

/** A query flag: `true` or `false` (absent is false). */
export const queryFlag = z
  .enum(['true', 'false'], { error: "must be 'true' or 'false'" })
  .optional()
  .transform((v) => v === 'true');

/** Who a stage grant is for: a user by email, or a team by name. */
export const grantSubject = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user'), email }),
  z.object({ type: z.literal('team'), name: z.string().trim().min(1, 'is required') }),
]);

/** A stage level, or 'none' to remove the grant. */
export const grantLevel = z.enum([...STAGE_LEVELS, 'none'], { error: "must be 'view', 'promote', 'manage' or 'none'" });
