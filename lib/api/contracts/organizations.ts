/**
 * Issue 23: organizations (step 4: list, create with the validator's key answered once, read, delete), their members
 * (Chef's associations, as /organizations/:org/users) and their groups.
 */
import { z } from 'zod';
import { defineRoute } from '../contract';

const organization = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    full_name: { type: 'string' },
    home: { type: 'boolean', description: "This server's home organization (CHEF_ORG): the one that holds policies, nodes, cookbooks, data bags and search" },
    created_at: { type: 'string', format: 'date-time' },
    members: { type: 'integer', description: 'How many users are members' },
    clients: { type: 'integer', description: 'How many clients it has (its validator included)' },
    guid: { type: 'string' },
  },
  required: ['name', 'full_name', 'home', 'created_at', 'members', 'clients', 'guid'],
};

export const listOrganizationsRoute = defineRoute({
  method: 'GET',
  path: '/organizations',
  summary: "Every organization on this server, by name (administrators: Chef's superuser)",
  responses: { 200: { description: '[{ name, full_name, home, created_at, members, clients, guid }]', schema: { type: 'array', items: organization } }, 403: 'Not an administrator' },
});

export const createOrganizationRoute = defineRoute({
  method: 'POST',
  path: '/organizations',
  summary: "Create an organization with its five groups and its validator client `<name>-validator` (administrators; audited). The validator's private key is in this answer only",
  description:
    "Chef's body and rules (as POST /organizations on the Chef routes): `name` matches ^[a-z0-9][a-z0-9_-]{0,254}$, `full_name` is 1 to 1023 characters and does not start with a space; `org_type` is accepted and ignored. A refused field answers 400 naming it, and nothing is stored. Other organizations hold clients, members and groups only: policies, nodes, cookbooks, data bags and search stay in the home organization.",
  bodyKind: 'json',
  bodyDoc: {
    schema: {
      type: 'object',
      properties: { name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,254}$' }, full_name: { type: 'string', minLength: 1, maxLength: 1023 }, org_type: { type: 'string', description: 'Accepted and ignored (Chef sends "Business")' } },
      required: ['name', 'full_name'],
    },
  },
  responses: {
    201: {
      description: '{ organization, validator: { name, private_key } }: the private key is shown once; the server keeps only the public key',
      schema: {
        type: 'object',
        properties: { organization, validator: { type: 'object', properties: { name: { type: 'string' }, private_key: { type: 'string', description: 'PEM (PKCS#1)' } }, required: ['name', 'private_key'] } },
        required: ['organization', 'validator'],
      },
    },
    400: 'A field is missing or breaks its rule (the message names it); the name of the home organization',
    403: 'Not an administrator',
    409: 'An organization of that name exists',
  },
});

export const getOrganizationRoute = defineRoute({
  method: 'GET',
  path: '/organizations/{org}',
  summary: 'One organization (administrators, and its members)',
  params: { org: "The organization's name" },
  responses: { 200: { description: '{ name, full_name, home, created_at, members, clients, guid }', schema: organization }, 403: 'Neither an administrator nor a member', 404: 'No such organization' },
});

export const deleteOrganizationRoute = defineRoute({
  method: 'DELETE',
  path: '/organizations/{org}',
  summary: 'Delete an organization with its clients (and their keys), memberships and groups (administrators; audited). The home organization refuses',
  params: { org: "The organization's name" },
  responses: { 200: { description: 'The organization as it was', schema: organization }, 400: "The home organization (CHEF_ORG) cannot be deleted", 403: 'Not an administrator', 404: 'No such organization' },
});

const member = {
  type: 'object',
  properties: { username: { type: ['string', 'null'] }, email: { type: 'string' }, display_name: { type: 'string' }, admin: { type: 'boolean' } },
  required: ['email'],
};
const ORG = { org: "The organization's name" };

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
