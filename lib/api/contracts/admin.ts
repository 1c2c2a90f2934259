/** Contracts of the administration routes: git repositories, orphan cleanup, the audit log. */
import { z } from 'zod';
import { defineRoute, wireBody } from '../contract';
import { ZRegisterGitRepositoryInput } from '@/lib/validation/git-repositories';
import { policyName } from '@/lib/validation/fields';
import { ZAuditQuery } from '@/lib/validation/audit';
import { ZOrgSettingsInput } from '@/lib/validation/org-settings';
import { ZTeamGroupsInput } from '@/lib/validation/sso';

const repository = { type: 'object', properties: { name: { type: 'string' }, url: { type: 'string' }, username: { type: ['string', 'null'] }, hasSecret: { type: 'boolean' } }, required: ['name'] };

export const listGitRepositoriesRoute = defineRoute({
  method: 'GET',
  path: '/git_repositories',
  summary: 'Registered git repositories compose may read: names for everyone, URLs for admins; credentials are never returned',
  responses: { 200: { description: '[{ name, url?, username?, hasSecret? }]', schema: { type: 'array', items: repository } } },
});

export const registerGitRepositoryRoute = defineRoute({
  method: 'POST',
  path: '/git_repositories',
  summary: 'Register (201) or replace (200) a git repository (admin); the secret is stored encrypted',
  body: wireBody(ZRegisterGitRepositoryInput),
  responses: { 201: { description: 'Registered', schema: repository }, 200: { description: 'Replaced', schema: repository }, 400: 'Invalid URL, credentials in the URL, or a local path without GIT_LOCAL_ROOT' },
});

export const deleteGitRepositoryRoute = defineRoute({
  method: 'DELETE',
  path: '/git_repositories/{name}',
  summary: 'Remove a registration (admin)',
  params: { name: 'Registered name' },
  responses: { 200: '{ name, deleted: true }', 404: 'Not registered' },
});

export const cleanupOrphansRoute = defineRoute({
  method: 'POST',
  path: '/orphans/cleanup',
  summary: 'Delete revisions active in no stage (admin)',
  body: z
    .object({
      policy: policyName.optional().describe('Only this policy'),
      keep_latest: z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 or more').optional().describe('Keep this many newest orphans of each policy'),
      dry_run: z.boolean().optional().describe('Only list what would be deleted'),
    })
    .strict()
    .transform((b) => ({ policy: b.policy, keepLatest: b.keep_latest, dryRun: b.dry_run })),
  responses: { 200: '{ dry_run, removed: { policy: [revision_id] } }' },
});

export const auditRoute = defineRoute({
  method: 'GET',
  path: '/audit',
  summary: 'Audit events the caller may read, newest first (non-admins: their stages, and policies and revisions)',
  query: ZAuditQuery,
  responses: { 200: { description: '{ events: AuditEvent[], nextCursor } or, with format=csv, a CSV file', contentType: 'application/json' } },
});

const settings = { type: 'object', properties: { stage_isolation: { type: 'boolean' }, updated_at: { type: ['string', 'null'] }, updated_by: { type: ['string', 'null'] } }, required: ['stage_isolation'] };

export const getSettingsRoute = defineRoute({
  method: 'GET',
  path: '/settings',
  summary: "The organization's settings: stage_isolation (a Chef client reads only its own stage's nodes, data bags and search results)",
  responses: { 200: { description: '{ stage_isolation, updated_at, updated_by }', schema: settings } },
});

export const putSettingsRoute = defineRoute({
  method: 'PUT',
  path: '/settings',
  summary: "Change the organization's settings (admin; audited)",
  body: ZOrgSettingsInput,
  responses: { 200: { description: 'The settings now', schema: settings }, 400: 'Not a boolean, or an unknown field', 403: 'Not an administrator' },
});

// ---- Issue 45: single sign-on ----

const teamIdpGroups = { type: 'object', properties: { team: { type: 'string' }, groups: { type: 'array', items: { type: 'string' } } }, required: ['team', 'groups'] };

export const getTeamIdpGroupsRoute = defineRoute({
  method: 'GET',
  path: '/teams/{team}/idp_groups',
  summary: "A team's identity-provider groups: members of any of them are the team's members, synced at each sign-in through the provider and each session refresh (admin)",
  params: { team: 'Team name' },
  responses: { 200: { description: '{ team, groups }', schema: teamIdpGroups }, 403: 'Not an administrator', 404: 'No such team' },
});

export const putTeamIdpGroupsRoute = defineRoute({
  method: 'PUT',
  path: '/teams/{team}/idp_groups',
  summary: "Replace a team's identity-provider groups (admin; audited). Memberships follow at each member's next sign-in or session refresh",
  params: { team: 'Team name' },
  body: z.object({ groups: ZTeamGroupsInput.shape.groups.describe('Group names exactly as the provider sends them in the groups claim (OIDC_GROUPS_CLAIM); at most 100, each 1 to 256 characters without control characters') }).strict(),
  responses: { 200: { description: 'The groups now', schema: teamIdpGroups }, 400: 'Not a list of group names (the pointer names the entry)', 403: 'Not an administrator', 404: 'No such team' },
});
