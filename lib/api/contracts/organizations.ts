/** Issue 23: the organization's members (the home organization, CHEF_ORG; Chef's associations, as /organizations/:org/users). */
import { z } from 'zod';
import { defineRoute } from '../contract';

const member = {
  type: 'object',
  properties: { username: { type: ['string', 'null'] }, email: { type: 'string' }, display_name: { type: 'string' }, admin: { type: 'boolean' } },
  required: ['email'],
};
const ORG = { org: "The organization's name (this console serves one: CHEF_ORG)" };

export const listMembersRoute = defineRoute({
  method: 'GET',
  path: '/organizations/{org}/members',
  summary: "The organization's members (members and administrators read it)",
  params: ORG,
  responses: { 200: { description: '[{ username, email, display_name, admin }]', schema: { type: 'array', items: member } }, 403: 'Not a member', 404: 'No such organization' },
});

export const addMemberRoute = defineRoute({
  method: 'POST',
  path: '/organizations/{org}/members',
  summary: 'Make a user a member (administrators; audited). Name them by Chef user name or e-mail',
  params: ORG,
  body: z
    .object({
      username: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional().describe('Chef user name'),
      email: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional().describe('E-mail (for a user without a Chef name)'),
    })
    .strict()
    .refine((b) => (b.username === undefined) !== (b.email === undefined), { message: 'give exactly one of username and email', path: ['username'] }),
  responses: { 201: { description: 'The new member', schema: member }, 400: 'Neither or both of username and email', 403: 'Not an administrator', 404: 'No such user or organization', 409: 'Already a member' },
});

export const removeMemberRoute = defineRoute({
  method: 'DELETE',
  path: '/organizations/{org}/members/{user}',
  summary: 'End a membership (administrators, or the user themselves; audited)',
  params: { ...ORG, user: 'Chef user name, or e-mail' },
  responses: { 200: { description: 'The former member', schema: member }, 403: 'Neither an administrator nor that user', 404: 'No such user, not a member, or no such organization' },
});

/** Issue 23 (step 3): the organization's groups, as Chef's /organizations/:org/groups/:group. */
const group = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    users: { type: 'array', items: { type: 'string' } },
    clients: { type: 'array', items: { type: 'string' } },
    groups: { type: 'array', items: { type: 'string' } },
    actors: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'users', 'clients', 'groups'],
};
const GROUP = { ...ORG, group: 'admins, billing-admins, users, clients or public_key_read_access' };
const names = (what: string) => z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of names' }).optional().describe(what);

export const getGroupRoute = defineRoute({
  method: 'GET',
  path: '/organizations/{org}/groups/{group}',
  summary: "One of the organization's groups (members read it); `users` and `clients` are derived",
  params: GROUP,
  responses: { 200: { description: '{ name, users, clients, groups, actors }', schema: group }, 403: 'Not a member', 404: 'No such group or organization' },
});

export const updateGroupRoute = defineRoute({
  method: 'PUT',
  path: '/organizations/{org}/groups/{group}',
  summary: "Replace a group's members (administrators and org admins; audited). Names that resolve to nothing are dropped; `users` and `clients` refuse (403)",
  params: GROUP,
  body: z
    .object({ users: names('Chef user names'), clients: names('client names'), groups: names('group names') })
    .strict(),
  responses: { 200: { description: 'The group', schema: group }, 400: 'A field is not an array of names', 403: 'Not an administrator or org admin, or a derived group', 404: 'No such group or organization' },
});
