/** The OpenAPI 3.1 description of /api/v1, served at /api/v1/openapi.json. */
import { APP_VERSION } from '@/lib/version';
import { guardedPaths, guardedSchemas } from './openapi-guarded';

const name = { type: 'string', pattern: '^[.A-Za-z0-9_:-]{1,255}$' };
const err = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const lockBody = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PolicyLock' } } } };
const lockResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/PolicyLock' } } } });
const json = (description: string, schema: object = { type: 'object' }) => ({ description, content: { 'application/json': { schema } } });
const p = (n: string, description: string) => ({ name: n, in: 'path', required: true, description, schema: name });
const q = (n: string, description: string, schema: object = { type: 'string' }) => ({ name: n, in: 'query', required: false, description, schema });
const common = {
  '401': err('No valid token or session'),
  '403': err('Not permitted (the message names the permission); also a cookie-authenticated write from another origin or without a JSON content type'),
  '503': err('The database write lock is held by another process; retry after Retry-After seconds'),
};

export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Policy Console API',
      version: APP_VERSION,
      description:
        "Chef's Policyfile HTTP API (policies, revisions, policy groups, nodes) with Chef Server's JSON shapes, plus the console's diff, promotion and audit endpoints. Errors are {\"error\": [messages], \"errors\": [{path, message}]}.",
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }, { session: [] }],
    paths: {
      '/policies': { get: { summary: 'List policies and their revision ids', responses: { '200': json('{ name: { uri, revisions: { id: {} } } }'), ...common } } },
      '/policies/{name}': {
        parameters: [p('name', 'Policy name')],
        get: { summary: 'A policy and its revision ids', responses: { '200': json('{ revisions: { id: {} } }'), '404': err('No such policy'), ...common } },
        delete: { summary: 'Delete a policy, its revisions and its stage associations (admin)', responses: { '200': json('{ revisions }'), '404': err('No such policy'), ...common } },
      },
      '/policies/{name}/revisions': {
        parameters: [p('name', 'Policy name (must equal the document name)')],
        get: { summary: 'Revision ids; ?orphans=true lists those active in no stage', parameters: [q('orphans', 'true: only revisions no stage runs')], responses: { '200': json('{ revisions }'), ...common } },
        post: {
          summary: 'Upload a revision (policy owner team)',
          parameters: [q('team', 'Owner team when the policy is new and the uploader has several teams')],
          requestBody: lockBody,
          responses: {
            '201': lockResponse('Stored; the body is echoed byte-for-byte'),
            '200': lockResponse('The same content was already stored under this id'),
            '400': err('Invalid lock: every violation with its JSON pointer'),
            '409': err("Policy 'N' with revision_id 'R' already exists. (different content)"),
            '413': err('Body over MAX_BODY_BYTES'),
            ...common,
          },
        },
      },
      '/policies/{name}/revisions/{revision_id}': {
        parameters: [p('name', 'Policy name'), p('revision_id', 'Revision id')],
        get: { summary: 'The stored document plus policy_group_list', responses: { '200': lockResponse('The document'), '404': err('No such revision'), ...common } },
        delete: { summary: 'Delete a revision no stage runs (policy owner)', responses: { '200': lockResponse('The deleted document'), '409': err('Still active in a stage'), '404': err('No such revision'), ...common } },
      },
      '/policy_groups': { get: { summary: 'Stages the caller may view', responses: { '200': json('{ group: { uri, position, description, policies?: { name: { revision_id } } } }'), ...common } } },
      '/policy_groups/{group}': {
        parameters: [p('group', 'Stage name')],
        get: { summary: 'One stage', responses: { '200': json('Stage'), '404': err('No such stage'), ...common } },
        put: {
          summary: 'Create (admin) or update (manage) a stage',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { position: { type: 'integer', minimum: 0 }, description: { type: 'string', maxLength: 500 } }, additionalProperties: false } } } },
          responses: { '201': json('Created'), '200': json('Updated'), '400': err('Invalid field'), ...common },
        },
        delete: { summary: 'Delete a stage and its associations (manage); revisions stay', responses: { '200': json('The deleted stage'), '404': err('No such stage'), ...common } },
      },
      '/policy_groups/{group}/policies/{name}': {
        parameters: [p('group', 'Stage name'), p('name', 'Policy name')],
        get: { summary: 'The lock a stage runs (node read path; stored bytes)', responses: { '200': lockResponse('The document'), '404': err('Cannot load policy N in policy group G'), ...common } },
        put: {
          summary: 'Store the lock if new and point the stage at it (promote; owner for new revisions)',
          requestBody: lockBody,
          parameters: [q('override_reason', 'overrides a freeze window (manage on the stage); audited')],
          responses: {
            '201': lockResponse('New association'),
            '200': lockResponse('Replaced the association'),
            '202': json('Protected stage: a promotion request was opened (the revision is stored), nothing moved', { type: 'object', properties: { request: { $ref: '#/components/schemas/PromotionRequest' } } }),
            '400': err('Invalid lock'),
            '409': err('Same revision id, different content; or the revision is marked bad'),
            '423': err('The stage is frozen'),
            ...common,
          },
        },
        delete: {
          summary: 'Remove the association (promote)',
          responses: { '200': lockResponse('The revision it held'), '202': json('Protected stage: a promotion request to remove it', { type: 'object' }), '404': err('No association'), '423': err('The stage is frozen'), ...common },
        },
      },
      '/policy_groups/{group}/nodes': { parameters: [p('group', 'Stage name')], get: { summary: 'Nodes in a stage', parameters: [q('stale', 'true: only nodes not on the active revision')], responses: { '200': json('{ nodes: Node[] }'), ...common } } },
      '/policy_groups/{group}/policies/{name}/nodes': {
        parameters: [p('group', 'Stage name'), p('name', 'Policy name')],
        get: { summary: 'Nodes running a policy in a stage', parameters: [q('stale', 'true: only stale nodes')], responses: { '200': json('{ nodes: Node[] }'), '404': err('No association'), ...common } },
      },
      '/nodes': {
        get: {
          summary: 'Nodes in viewable stages',
          parameters: [q('group', 'Stage name'), q('policy', 'Policy name'), q('stale', 'true: running a revision other than the stage’s active one')],
          responses: { '200': json('{ nodes: Node[] }', { type: 'object', properties: { nodes: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } }), ...common },
        },
      },
      '/nodes/{name}': {
        parameters: [p('name', 'Node name')],
        put: {
          summary: 'Register a node or record a check-in (node.report on the stage)',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['policy_group', 'policy_name'],
                  properties: { policy_group: name, policy_name: name, revision_id: name, platform: { type: 'string' }, platform_version: { type: 'string' }, platform_family: { type: 'string' }, os: { type: 'string' } },
                  additionalProperties: false,
                },
              },
            },
          },
          responses: { '201': json('Registered'), '200': json('Updated'), '400': err('Invalid field'), '404': err('Unknown stage or policy'), ...common },
        },
      },
      '/git_repositories': {
        get: { summary: 'Registered git repositories compose may read: names for everyone, URLs for admins; credentials are never returned', responses: { '200': json('[{ name, url?, username?, hasSecret? }]'), ...common } },
        post: {
          summary: 'Register (201) or replace (200) a git repository (admin); the secret is stored encrypted',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name', 'url'], properties: { name, url: { type: 'string', description: 'http(s) URL without credentials, or a path below GIT_LOCAL_ROOT' }, username: { type: 'string' }, secret: { type: 'string', writeOnly: true } }, additionalProperties: false } } } },
          responses: { '201': json('Registered'), '200': json('Replaced'), '400': err('Invalid URL, credentials in the URL, or a local path without GIT_LOCAL_ROOT'), ...common },
        },
      },
      '/git_repositories/{name}': { parameters: [p('name', 'Registered name')], delete: { summary: 'Remove a registration (admin)', responses: { '200': json('{ name, deleted }'), '404': err('Not registered'), ...common } } },
      '/orphans/cleanup': {
        post: {
          summary: 'Delete revisions active in no stage (admin)',
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { policy: name, keep_latest: { type: 'integer', minimum: 0 }, dry_run: { type: 'boolean' } } } } } },
          responses: { '200': json('{ dry_run, removed: { policy: [revision_id] } }'), ...common },
        },
      },
      ...guardedPaths,
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'npm run token:create -- <email>' }, session: { type: 'apiKey', in: 'cookie', name: 'next-auth.session-token' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'array', items: { type: 'string' } }, errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string', description: 'JSON pointer' }, message: { type: 'string' } } } } },
        },
        PolicyLock: {
          type: 'object',
          required: ['name', 'revision_id', 'run_list', 'cookbook_locks'],
          additionalProperties: true,
          properties: {
            name,
            revision_id: name,
            run_list: { type: 'array', items: { type: 'string', pattern: '^recipe\\[[.A-Za-z0-9_-]+::[.A-Za-z0-9_-]+\\]$' } },
            named_run_lists: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
            cookbook_locks: {
              type: 'object',
              additionalProperties: {
                type: 'object',
                required: ['version', 'identifier'],
                additionalProperties: true,
                properties: { version: { type: 'string', pattern: '^\\d+\\.\\d+(\\.\\d+)?$' }, identifier: name, dotted_decimal_identifier: { type: 'string' } },
              },
            },
            default_attributes: { type: 'object' },
            override_attributes: { type: 'object' },
            solution_dependencies: { type: 'object' },
            included_policy_locks: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, revision_id: name, source_options: { type: 'object' } } } },
          },
        },
        Node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            policy_group: { type: ['string', 'null'] },
            policy_name: { type: ['string', 'null'] },
            revision_id: { type: ['string', 'null'] },
            active_revision_id: { type: ['string', 'null'] },
            stale: { type: 'boolean' },
            platform: { type: ['string', 'null'] },
            platform_version: { type: ['string', 'null'] },
            platform_family: { type: ['string', 'null'] },
            os: { type: ['string', 'null'] },
            last_check_in: { type: ['string', 'null'], format: 'date-time' },
          },
        },
        ...guardedSchemas,
      },
    },
  };
}
