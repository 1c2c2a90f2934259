/** OpenAPI paths and schemas of the guarded-stages endpoints (issue 15), merged into lib/api/openapi.ts. */
const name = { type: 'string', pattern: '^[.A-Za-z0-9_:-]{1,255}$' };
const err = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const json = (description: string, schema: object = { type: 'object' }) => ({ description, content: { 'application/json': { schema } } });
const p = (n: string, description: string) => ({ name: n, in: 'path', required: true, description, schema: { type: 'string' } });
const q = (n: string, description: string, schema: object = { type: 'string' }) => ({ name: n, in: 'query', required: false, description, schema });
const body = (schema: object, required = true) => ({ required, content: { 'application/json': { schema } } });
const ref = (s: string) => ({ $ref: `#/components/schemas/${s}` });
const common = {
  '401': err('No valid token or session'),
  '403': err('Not permitted (the message names the permission)'),
  '503': err('The database write lock is held by another process; retry after Retry-After seconds'),
};
const requestBody = json('{ request }', { type: 'object', properties: { request: ref('PromotionRequest') } });

export const RULE_SCHEMA = {
  type: 'object',
  required: ['kind', 'approvals'],
  description:
    'An approval rule. The approvals a change needs are the maximum (not the sum) over approvals_required and every rule that applies to the diff of the stage’s current lock → the requested lock.',
  properties: {
    kind: { enum: ['any_change', 'major_bump', 'run_list_change', 'attribute_path', 'core_resource_claim'] },
    approvals: { type: 'integer', minimum: 0, maximum: 10 },
    patterns: { type: 'array', minItems: 1, maxItems: 20, items: { type: 'string' }, description: 'attribute_path only: dot-separated globs, `*` one segment, `**` any number (e.g. "security.*")' },
  },
};

export const guardedPaths = {
  '/policy_groups/{group}/protection': {
    parameters: [p('group', 'Stage name')],
    get: { summary: 'The stage’s protection, rules and approvers (view)', responses: { '200': json('Protection', ref('StageProtection')), '404': err('No such stage'), ...common } },
    put: {
      summary: 'Require approval for changes into the stage (manage)',
      description: 'Every pointer move into a protected stage (promotion, cookbook, bulk, rollback, PUT here or on the Chef routes) becomes a promotion request when the rules ask for approvals.',
      requestBody: body({
        type: 'object',
        required: ['approvals_required'],
        additionalProperties: false,
        properties: {
          approvals_required: { type: 'integer', minimum: 0, maximum: 10, description: 'approvals every change needs (0: only the rules decide)' },
          rules: { type: 'array', items: ref('ApprovalRule') },
          approvers: { type: 'array', items: { type: 'string', pattern: '^(user|team):.+$' }, description: 'replaces the approver grants: "user:<email>" or "team:<name>"' },
          protected: { type: 'boolean', description: 'false lifts the protection' },
        },
      }),
      responses: { '200': json('Protection', ref('StageProtection')), '400': err('Invalid field (JSON pointer in errors)'), '404': err('No such stage, user or team'), ...common },
    },
    delete: { summary: 'Lift the protection (manage); approver grants stay', responses: { '200': json('Protection', ref('StageProtection')), ...common } },
  },
  '/policy_groups/{group}/freezes': {
    parameters: [p('group', 'Stage name')],
    get: { summary: 'Freeze windows of the stage, past ones included (view)', responses: { '200': json('{ freezes }', { type: 'object', properties: { freezes: { type: 'array', items: ref('FreezeWindow') } } }), ...common } },
    post: {
      summary: 'Add a freeze window (manage)',
      description: 'UTC. One-off: [starts_at, ends_at). weekly: the same range repeats every 7 days from its first occurrence (shorter than 7 days). During a freeze, moves into the stage answer 423 unless a manager gives override_reason.',
      requestBody: body({ type: 'object', required: ['starts_at', 'ends_at', 'reason'], properties: { starts_at: { type: 'string', format: 'date-time' }, ends_at: { type: 'string', format: 'date-time' }, reason: { type: 'string', maxLength: 500 }, weekly: { type: 'boolean' } } }),
      responses: { '201': json('{ freeze }', { type: 'object', properties: { freeze: ref('FreezeWindow') } }), '400': err('Invalid field'), ...common },
    },
  },
  '/policy_groups/{group}/freezes/{id}': {
    parameters: [p('group', 'Stage name'), p('id', 'Freeze window id')],
    delete: { summary: 'Delete a freeze window (manage)', responses: { '200': json('{ deleted: true }'), '404': err('No such window'), ...common } },
  },
  '/promotion_requests': {
    get: {
      summary: 'Promotion requests in the stages the caller may view, newest first',
      parameters: [
        q('stage', 'Stage name'),
        q('status', 'pending | applied | rejected | withdrawn | outdated | expired', { enum: ['pending', 'applied', 'rejected', 'withdrawn', 'outdated', 'expired'] }),
        q('policy', 'Policy name'),
        q('scope', 'all | mine (asked by me) | to_approve (pending, I may approve)', { enum: ['all', 'mine', 'to_approve'] }),
        q('limit', '1..500 (200)', { type: 'integer' }),
      ],
      responses: { '200': json('{ requests }', { type: 'object', properties: { requests: { type: 'array', items: ref('PromotionRequest') } } }), '400': err('Invalid filter'), ...common },
    },
  },
  '/promotion_requests/{id}': { parameters: [p('id', 'Request id')], get: { summary: 'One request', responses: { '200': requestBody, '404': err('No such request (or its stage is hidden)'), ...common } } },
  '/promotion_requests/{id}/approve': {
    parameters: [p('id', 'Request id')],
    post: {
      summary: 'Approve (an approver of the stage; never the requester). Reaching the required approvals applies the request through the same compare-and-swap as any promotion; when the stage moved meanwhile it becomes outdated and nothing moves.',
      requestBody: body({ type: 'object', properties: { comment: { type: 'string', maxLength: 2000 }, override_reason: { type: 'string', maxLength: 1000, description: 'a freeze override when this approval applies the request during a freeze (manage on the stage)' } } }, false),
      responses: { '200': requestBody, '409': err('Not pending (applied, rejected, withdrawn, outdated, expired), already decided, or the revision is marked bad'), '423': err('The stage is frozen: the approval is not recorded'), ...common },
    },
  },
  '/promotion_requests/{id}/reject': {
    parameters: [p('id', 'Request id')],
    post: { summary: 'Reject with a comment (an approver; never the requester)', requestBody: body({ type: 'object', required: ['comment'], properties: { comment: { type: 'string', minLength: 1, maxLength: 2000 } } }), responses: { '200': requestBody, '400': err('comment is required'), '409': err('Not pending'), ...common } },
  },
  '/promotion_requests/{id}/withdraw': {
    parameters: [p('id', 'Request id')],
    post: { summary: 'Withdraw (the requester, or a manager of the stage)', responses: { '200': requestBody, '409': err('Not pending'), ...common } },
  },
  '/policies/{name}/revisions/{revision_id}/bad': {
    parameters: [p('name', 'Policy name'), p('revision_id', 'Revision id')],
    put: {
      summary: 'Mark a revision bad: it cannot be promoted or rolled back to anywhere (promote on a stage running it, the owner team, or admin)',
      requestBody: body({ type: 'object', required: ['reason'], properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } } }),
      responses: { '200': json('{ bad_revision }', { type: 'object', properties: { bad_revision: ref('BadRevision') } }), '400': err('reason is required'), '409': err('Already marked'), '404': err('No such revision'), ...common },
    },
    delete: { summary: 'Unmark (same permission)', responses: { '200': json('{ policy, revision_id, bad: false }'), '404': err('Not marked'), ...common } },
  },
  '/webhooks': {
    get: { summary: 'Webhook subscriptions (admin)', responses: { '200': json('{ webhooks }', { type: 'object', properties: { webhooks: { type: 'array', items: ref('Webhook') } } }), ...common } },
    post: {
      summary: 'Subscribe a URL to events (admin). Deliveries are POSTed with X-Policy-Console-Signature: sha256=<hex HMAC-SHA256 of the raw body>, retried with exponential backoff; redirects are not followed.',
      requestBody: body({
        type: 'object',
        required: ['name', 'url', 'events'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', maxLength: 100 },
          url: { type: 'string', description: 'http:// or https://' },
          events: { type: 'array', minItems: 1, items: { enum: ['request.opened', 'request.approved', 'request.rejected', 'request.applied', 'request.outdated', 'promotion.applied', 'freeze.started', 'freeze.overridden', 'revision.marked_bad'] } },
          secret: { type: 'string', minLength: 16, writeOnly: true, description: 'generated when absent' },
          slack: { type: 'boolean', description: 'send Slack-compatible { text } bodies' },
        },
      }),
      responses: { '201': json('{ webhook, secret } — the secret is returned only here'), '400': err('Invalid field'), ...common },
    },
  },
  '/webhooks/{id}': {
    parameters: [p('id', 'Subscription id')],
    get: { summary: 'One subscription (admin)', responses: { '200': json('{ webhook }'), '404': err('No such subscription'), ...common } },
    delete: { summary: 'Delete a subscription and its delivery log (admin)', responses: { '200': json('{ deleted: true }'), '404': err('No such subscription'), ...common } },
  },
  '/webhooks/{id}/deliveries': {
    parameters: [p('id', 'Subscription id')],
    get: { summary: 'Delivery log (admin): each delivery with every attempt’s status code, error and time', parameters: [q('limit', '1..500 (100)', { type: 'integer' })], responses: { '200': json('{ deliveries }'), '404': err('No such subscription'), ...common } },
  },
  '/webhooks/{id}/test': {
    parameters: [p('id', 'Subscription id')],
    post: { summary: 'Queue a test event to this subscription (admin)', responses: { '202': json('{ queued }'), '404': err('No such subscription'), ...common } },
  },
  '/policy_groups/{group}/promote': {
    parameters: [p('group', 'Target stage')],
    post: {
      summary: 'Promote policies from another stage, all or nothing (promote)',
      requestBody: body({
        type: 'object',
        required: ['from', 'policies', 'expected'],
        properties: {
          from: name,
          policies: { oneOf: [{ const: 'all' }, { type: 'array', items: name }] },
          expected: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
          reason: { type: 'string' },
          override_reason: { type: 'string', description: 'overrides a freeze window (manage on the stage) and missing artifacts; audited' },
        },
      }),
      responses: {
        '200': json('{ from, to, promoted, requests: [] }'),
        '202': json('Protected stage: a promotion request per policy that needs approvals; nothing moved for those', { type: 'object', properties: { requests: { type: 'array', items: ref('PromotionRequest') }, request: ref('PromotionRequest') } }),
        '409': err('The stage changed since you looked, or a revision is marked bad'),
        '423': err('The stage is frozen (the window’s reason and end)'),
        ...common,
      },
    },
  },
  '/policy_groups/{group}/policies/{name}/promote-cookbook': {
    parameters: [p('group', 'Target stage'), p('name', 'Policy name')],
    post: {
      summary: 'Promote one cookbook from another stage as a derived revision (promote)',
      requestBody: body({ type: 'object', required: ['from', 'cookbook', 'expected_revision_id'], properties: { from: name, cookbook: { type: 'string' }, expected_revision_id: { type: ['string', 'null'] }, reason: { type: 'string' }, override_reason: { type: 'string' }, dry_run: { type: 'boolean' } } }),
      responses: { '201': json('Promoted'), '200': json('No-op or dry run'), '202': requestBody, '409': err('Stale view or bad revision'), '422': err('Unmet dependencies'), '423': err('Frozen'), ...common },
    },
  },
  '/policy_groups/{group}/policies/{name}/rollback': {
    parameters: [p('group', 'Stage'), p('name', 'Policy name')],
    post: {
      summary: 'Back to a revision this stage held before (promote)',
      requestBody: body({ type: 'object', required: ['to_revision_id', 'expected_revision_id', 'reason'], properties: { to_revision_id: name, expected_revision_id: { type: ['string', 'null'] }, reason: { type: 'string' }, override_reason: { type: 'string' } } }),
      responses: { '200': json('Rolled back'), '202': requestBody, '409': err('Stale view or bad revision'), '423': err('Frozen'), ...common },
    },
  },
};

export const guardedSchemas = {
  ApprovalRule: RULE_SCHEMA,
  StageProtection: {
    type: 'object',
    properties: {
      stage: { type: 'string' },
      protected: { type: 'boolean' },
      approvals_required: { type: 'integer' },
      rules: { type: 'array', items: ref('ApprovalRule') },
      approvers: { type: 'array', items: { type: 'object', properties: { principal: { type: 'string' }, type: { enum: ['user', 'team'] }, name: { type: 'string' } } } },
      updated_by: { type: ['string', 'null'] },
      updated_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  PromotionRequest: {
    type: 'object',
    required: ['id', 'status', 'approvals_required', 'approvals', 'reasons'],
    properties: {
      id: { type: 'string' },
      url: { type: 'string', description: 'the request page' },
      status: { enum: ['pending', 'applied', 'rejected', 'withdrawn', 'outdated', 'expired'] },
      stage: { type: 'string' },
      policy: { type: 'string' },
      kind: { enum: ['promote', 'promote-cookbook', 'rollback', 'set', 'remove'] },
      from_revision_id: { type: ['string', 'null'], description: 'what the stage ran when the request was made; the apply is a compare-and-swap against it' },
      to_revision_id: { type: ['string', 'null'] },
      approvals_required: { type: 'integer' },
      approvals: { type: 'array', items: { type: 'object', properties: { user_id: { type: 'string' }, email: { type: 'string' }, comment: { type: ['string', 'null'] }, at: { type: 'string', format: 'date-time' } } } },
      rejections: { type: 'array', items: { type: 'object' } },
      reasons: { type: 'array', items: { type: 'object', properties: { rule: { type: 'string' }, approvals: { type: 'integer' }, message: { type: 'string', examples: ['2 approvals: nginx 11.6.2 → 12.0.0 is a major bump'] }, details: { type: 'array', items: { type: 'string' } } } } },
      diff_summary: { type: 'object' },
      blast_radius: { type: 'object', properties: { nodes: { type: 'integer' }, stale: { type: 'integer' } } },
      origin: { type: 'object' },
      reason: { type: ['string', 'null'] },
      requested_by: { type: 'object', properties: { id: { type: ['string', 'null'] }, email: { type: 'string' } } },
      created_at: { type: 'string', format: 'date-time' },
      expires_at: { type: 'string', format: 'date-time' },
      decided_at: { type: ['string', 'null'], format: 'date-time' },
      decided_by: { type: ['string', 'null'] },
    },
  },
  FreezeWindow: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      stage: { type: 'string' },
      starts_at: { type: 'string', format: 'date-time' },
      ends_at: { type: 'string', format: 'date-time' },
      weekly: { type: 'boolean' },
      reason: { type: 'string' },
      active: { type: ['object', 'null'] },
      next: { type: ['object', 'null'] },
      past: { type: 'boolean' },
    },
  },
  BadRevision: { type: 'object', properties: { policy: { type: 'string' }, revision_id: { type: 'string' }, reason: { type: 'string' }, marked_by: { type: 'string' }, marked_at: { type: 'string', format: 'date-time' } } },
  Webhook: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'array', items: { type: 'string' } },
      slack: { type: 'boolean' },
      active: { type: 'boolean' },
      counts: { type: 'object', properties: { pending: { type: 'integer' }, delivered: { type: 'integer' }, failed: { type: 'integer' } } },
    },
  },
};
