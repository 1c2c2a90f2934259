/** JSON Schemas of the guarded-stage answers (issue 15), for the OpenAPI document. Pure data. */

export const approvalRuleSchema = {
  type: 'object',
  required: ['kind', 'approvals'],
  description: 'An approval rule. A change needs the maximum (not the sum) of approvals_required and the approvals of every rule that applies to the diff of the stage’s current lock → the requested lock.',
  properties: {
    kind: { enum: ['any_change', 'major_bump', 'run_list_change', 'attribute_path', 'core_resource_claim'] },
    approvals: { type: 'integer', minimum: 0, maximum: 10 },
    patterns: { type: 'array', minItems: 1, maxItems: 20, items: { type: 'string' }, description: 'attribute_path only: dot-separated globs, `*` one segment, `**` any number (e.g. "security.*")' },
  },
};

const decision = { type: 'object', properties: { user_id: { type: 'string' }, email: { type: 'string' }, comment: { type: ['string', 'null'] }, at: { type: 'string', format: 'date-time' } } };

export const promotionRequestSchema = {
  type: 'object',
  required: ['id', 'status', 'approvals_required', 'approvals', 'reasons'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string', description: 'The request page (absolute with NEXTAUTH_URL or PUBLIC_URL set)' },
    status: { enum: ['pending', 'applied', 'rejected', 'withdrawn', 'outdated', 'expired'] },
    stage: { type: 'string' },
    policy: { type: 'string' },
    kind: { enum: ['promote', 'promote-cookbook', 'rollback', 'set', 'remove', 'ring'], description: 'ring: the start of a ringed rollout (issue 30); approving it starts the ring instead of moving the stage' },
    from_revision_id: { type: ['string', 'null'], description: 'What the stage ran when the request was made: the apply is a compare-and-swap against it' },
    to_revision_id: { type: ['string', 'null'] },
    approvals_required: { type: 'integer' },
    approvals: { type: 'array', items: decision },
    rejections: { type: 'array', items: decision },
    reasons: {
      type: 'array',
      items: { type: 'object', properties: { rule: { type: 'string' }, approvals: { type: 'integer' }, message: { type: 'string', examples: ['2 approvals: nginx 11.6.2 → 12.0.0 is a major bump'] }, details: { type: 'array', items: { type: 'string' } } } },
    },
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
};

export const requestEnvelope = { type: 'object', required: ['request'], properties: { request: promotionRequestSchema } };

export const stageProtectionSchema = {
  type: 'object',
  properties: {
    stage: { type: 'string' },
    protected: { type: 'boolean' },
    approvals_required: { type: 'integer' },
    rules: { type: 'array', items: approvalRuleSchema },
    approvers: { type: 'array', items: { type: 'object', properties: { principal: { type: 'string' }, type: { enum: ['user', 'team'] }, name: { type: 'string' } } } },
    updated_by: { type: ['string', 'null'] },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

export const freezeWindowSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    stage: { type: 'string' },
    starts_at: { type: 'string', format: 'date-time' },
    ends_at: { type: 'string', format: 'date-time' },
    weekly: { type: 'boolean' },
    reason: { type: 'string' },
    active: { type: ['object', 'null'], description: 'The occurrence covering now' },
    next: { type: ['object', 'null'], description: 'The next occurrence' },
    past: { type: 'boolean' },
  },
};

/** The guard state of a stage (issue 22): the one shape the board, the admin screen and these routes share. */
export const stageGuardStateSchema = {
  type: 'object',
  properties: {
    ...stageProtectionSchema.properties,
    freezes: { type: 'array', items: freezeWindowSchema, description: 'Every window, past ones included, newest start first' },
    frozen: {
      type: ['object', 'null'],
      description: 'Frozen now: the window ending last among those in force, and opens_at (when the stage opens, through chained windows)',
      properties: { window_id: { type: 'string' }, reason: { type: 'string' }, weekly: { type: 'boolean' }, ends_at: { type: 'string', format: 'date-time' }, opens_at: { type: 'string', format: 'date-time' }, windows: { type: 'array', items: { type: 'object' } } },
    },
    next_freeze: { type: ['object', 'null'], properties: { window_id: { type: 'string' }, reason: { type: 'string' }, starts_at: { type: 'string', format: 'date-time' }, ends_at: { type: 'string', format: 'date-time' } } },
    pending_requests: { type: 'integer', description: 'Pending, unexpired promotion requests into the stage' },
    viewer_is_approver: { type: 'boolean' },
    viewer_can_manage: { type: 'boolean', description: 'May edit protection and freezes and override a freeze' },
  },
};

export const badRevisionSchema = { type: 'object', properties: { policy: { type: 'string' }, revision_id: { type: 'string' }, reason: { type: 'string' }, marked_by: { type: 'string' }, marked_at: { type: 'string', format: 'date-time' } } };

export const webhookSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    slack: { type: 'boolean' },
    format: { type: 'string', enum: ['json', 'slack', 'teams'] },
    allow_private_targets: { type: 'boolean' },
    active: { type: 'boolean' },
    counts: { type: 'object', properties: { pending: { type: 'integer' }, delivered: { type: 'integer' }, failed: { type: 'integer' } } },
    last_attempt: { type: ['object', 'null'] },
    last_delivery: { type: ['object', 'null'], description: 'The newest delivery: { event, status, status_code, at }' },
  },
};
