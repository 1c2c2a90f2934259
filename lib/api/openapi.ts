/** The OpenAPI 3.1 description of /api/v1, served at /api/v1/openapi.json: generated from the route contracts (lib/api/contracts). */
import { z } from 'zod';
import { APP_VERSION } from '@/lib/version';
import { NAME_PATTERN } from '@/lib/domain';
import type { RouteContract, ResponseSpec } from './contract';
import { API_CONTRACTS } from './contracts';

const name = { type: 'string', pattern: NAME_PATTERN.source };

type JsonSchema = Record<string, unknown>;

/** A zod schema as JSON Schema, as the client sends it (before transforms). */
function toSchema(schema: z.ZodType | object): JsonSchema {
  if (!(schema instanceof z.ZodType)) return schema as JsonSchema;
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete out.$schema;
  return out;
}

const nameSchema = { type: 'string', pattern: NAME_PATTERN.source };
const STATUS_TEXT: Record<number, string> = { 400: 'Invalid input: every violation with its JSON pointer', 401: 'No valid token or session', 403: 'Not permitted (the message names the permission); also a cookie-authenticated write from another origin or without a JSON content type', 404: 'Not found', 409: 'Conflict', 413: 'Body over the limit', 503: 'The database is busy; retry after Retry-After seconds' };

function response(status: number, spec: string | ResponseSpec) {
  const s = typeof spec === 'string' ? { description: spec } : spec;
  const schema = s.schema ? toSchema(s.schema) : status >= 400 ? { $ref: '#/components/schemas/Error' } : undefined;
  return { description: s.description, ...(schema ? { content: { [s.contentType ?? 'application/json']: { schema } } } : {}) };
}

/** One operation of the document, from its contract. */
export function operation(c: RouteContract) {
  const pathParams = [...c.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const parameters: object[] = pathParams.map((n) => ({ name: n, in: 'path', required: true, description: c.params?.[n] ?? n, schema: nameSchema }));
  if (c.query) {
    const q = toSchema(c.query) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [n, schema] of Object.entries(q.properties ?? {})) {
      parameters.push({ name: n, in: 'query', required: (q.required ?? []).includes(n), ...(schema.description ? { description: schema.description } : {}), schema });
    }
  }
  const body = c.body ? toSchema(c.body) : c.bodyDoc?.schema;
  const responses: Record<string, object> = {};
  for (const [status, spec] of Object.entries(c.responses)) responses[status] = response(Number(status), spec);
  const implied: number[] = [];
  if (c.body || c.query || c.bodyKind) implied.push(400);
  if (c.body || c.bodyKind) implied.push(413);
  if (c.auth !== 'public') implied.push(401, 403, 503);
  for (const status of implied) responses[status] ??= response(status, STATUS_TEXT[status]);
  return {
    summary: c.summary,
    ...(c.description ? { description: c.description } : {}),
    ...(c.auth === 'public' ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: { required: true, ...(c.bodyDoc?.description ? { description: c.bodyDoc.description } : {}), content: { 'application/json': { schema: body } } } } : {}),
    responses,
  };
}

/** The document: every contract in API_CONTRACTS, one operation each, under its path. */
export function openApiDocument() {
  const paths: Record<string, Record<string, object>> = {};
  for (const c of [...API_CONTRACTS].sort((a, b) => a.path.localeCompare(b.path))) {
    const entry = (paths[c.path] ??= {});
    const method = c.method.toLowerCase();
    if (entry[method]) throw new Error(`Two contracts for ${c.method} ${c.path}`);
    entry[method] = operation(c);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Policy Console API',
      version: APP_VERSION,
      description:
        "Chef's Policyfile HTTP API (policies, revisions, policy groups, nodes) with Chef Server's JSON shapes, plus the console's diff, promotion and audit endpoints. Errors are {\"error\": [messages], \"errors\": [{path, message}]}, each path an RFC 6901 JSON pointer to the field as the client sent it. Every response carries X-Request-Id (the caller's, if it sent one).",
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }, { session: [] }],
    paths,
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
        Stage: {
          type: 'object',
          properties: {
            uri: { type: 'string' },
            position: { type: 'integer' },
            description: { type: 'string' },
            require_artifacts: { type: 'boolean' },
            open_enrollment: { type: 'boolean' },
            policies: { type: 'object', additionalProperties: { type: 'object', properties: { revision_id: name } } },
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
      },
    },
  };
}
