/** Issue 45: inputs of single sign-on's administration (Admin → Teams and Users, /api/v1/teams/{team}/idp_groups). */
import { z } from 'zod';
import { groupNameProblem, MAX_TEAM_GROUPS } from '@/lib/domain/sso';

export const ZTeamGroupsInput = z.object({
  team: z.string().trim().min(1, 'is required'),
  groups: z
    .array(z.string().superRefine((g, ctx) => {
      const problem = groupNameProblem(g);
      if (problem) ctx.addIssue({ code: 'custom', message: `group name ${problem}` });
    }))
    .max(MAX_TEAM_GROUPS, `at most ${MAX_TEAM_GROUPS} groups on one team`),
});

export const ZLinkIdentityInput = z.object({
  email: z.string().trim().toLowerCase().email('must be an email address'),
  subject: z.string().trim().min(1, 'is required').max(255, 'is at most 255 characters'),
});

export const ZUnlinkIdentityInput = z.object({ email: z.string().trim().toLowerCase().email('must be an email address') });
