/**
 * Issue 26: chef-client's data collector. Every run sends `run_start` and then
 * `run_converge` (success or failure) to `POST <chef_server_url>/data-collector`,
 * exactly as Chef::DataCollector (chef 18) builds them; each becomes one
 * RunReport row (keyed by run_id, so a retried message updates the same row),
 * and a finished run updates the node's NodeRunState, which the health
 * queries, the gates and the automatic rollback read.
 *
 * Who may send: a node's own client, signed (the message's node_name must be
 * the client's name: a client reporting for another node is refused); a user
 * with node.report on the run's stage (admins for an unknown stage); or, on
 * Automate's path (/data-collector/v0), the shared DATA_COLLECTOR_TOKEN. The
 * validator may not.
 */
import { z } from 'zod';
import { db, type Tx } from '@/lib/db/client';
import { can, type Actor } from '@/lib/auth/permissions';
import { NAME_PATTERN } from '@/lib/domain';
import { AppError, badRequest, conflict, forbidden } from '@/lib/errors';
import { transaction } from './internal/retry';
import { afterRunReported } from './rollout';

/** Who sent a message: a Chef requestor (signed) or the Automate-style token. */
export type DataCollectorSender = { kind: 'actor'; actor: Actor } | { kind: 'token' };

/** The largest message accepted (bytes; DATA_COLLECTOR_MAX_BYTES, default 4 MiB): a real run with full ohai data is well below. */
export function dataCollectorMaxBytes(): number {
  const n = Number(process.env.DATA_COLLECTOR_MAX_BYTES);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 4 * 1024 * 1024;
}

/** At most this many resources are kept per run (the counts keep the real totals). */
export const MAX_STORED_RESOURCES = 2000;
const MAX_DEPRECATIONS = 100;

const NODE_NAME = /^[A-Za-z0-9_.:-]{1,255}$/;
const RUN_ID = /^[A-Za-z0-9-]{1,64}$/;
const chefNameOrNull = z
  .union([z.string().regex(NAME_PATTERN, 'must be a policy or group name'), z.null()])
  .optional()
  .transform((v) => v ?? null);
const isoTime = z
  .string({ error: 'must be an ISO 8601 time' })
  .max(40)
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time')
  .transform((s) => new Date(s));
const text = (max: number) =>
  z
    .unknown()
    .optional()
    .transform((v) => (v === undefined || v === null ? null : String(v).slice(0, max)));
const count = z.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 or more').max(10_000_000, 'is too large');

const ZResource = z
  .object({
    type: z.string({ error: 'must be a string' }).max(200),
    name: text(1000),
    id: text(1000),
    duration: z.union([z.string().max(20), z.number()]).optional(),
    result: text(100),
    status: z.string({ error: 'must be a string' }).max(40),
    cookbook_name: text(255),
    cookbook_version: text(100),
    recipe_name: text(255),
    ignore_failure: z.boolean().optional(),
    error_message: text(2000),
    error: z.object({ class: text(200), message: text(2000) }).passthrough().optional(),
  })
  .passthrough();

const ZBase = {
  node_name: z.string({ error: 'is required' }).regex(NODE_NAME, 'must be a node name'),
  run_id: z.string({ error: 'is required' }).regex(RUN_ID, 'must be a run id (letters, digits and dashes)'),
  id: z.string().max(64).optional(),
  start_time: isoTime,
  message_version: z.string().max(20).optional(),
  organization_name: z.string().max(255).optional(),
  source: z.enum(['chef_client', 'chef_solo'], { error: 'must be chef_client or chef_solo' }).optional(),
  entity_uuid: z.string().max(64).nullable().optional(),
  chef_server_fqdn: z.string().max(255).nullable().optional(),
};

const ZRunStart = z.object({ message_type: z.literal('run_start'), ...ZBase }).passthrough();

const ZRunConverge = z
  .object({
    message_type: z.literal('run_converge'),
    ...ZBase,
    end_time: isoTime,
    status: z.enum(['success', 'failure'], { error: 'must be success or failure' }),
    policy_name: chefNameOrNull,
    policy_group: chefNameOrNull,
    node: z.record(z.string(), z.unknown()).optional(),
    resources: z.array(ZResource, { error: 'must be an array of resources' }).max(100_000, 'has too many resources').default([]),
    total_resource_count: count.optional(),
    updated_resource_count: count.optional(),
    deprecations: z.array(z.unknown()).max(10_000).default([]),
    error: z
      .object({ class: text(200), message: text(4000), description: z.unknown().optional() })
      .passthrough()
      .nullable()
      .optional(),
  })
  .passthrough();

export type RunConvergeMessage = z.infer<typeof ZRunConverge>;

function parseMessage(body: unknown) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('A data collector message must be a JSON object', [{ path: '', message: 'must be a JSON object' }]);
  const type = (body as { message_type?: unknown }).message_type;
  const schema = type === 'run_start' ? ZRunStart : type === 'run_converge' ? ZRunConverge : null;
  if (!schema) throw badRequest(`message_type must be run_start or run_converge, not ${JSON.stringify(type ?? null).slice(0, 40)}`, [{ path: '/message_type', message: 'must be run_start or run_converge' }]);
  const r = schema.safeParse(body);
  if (!r.success) {
    const errors = r.error.issues.slice(0, 20).map((i) => {
      const path = '/' + i.path.map(String).join('/');
      return { path, message: `${i.path.map(String).join('.') || 'message'} ${i.message}` };
    });
    throw badRequest(errors[0].message, errors);
  }
  return r.data as z.infer<typeof ZRunStart> | RunConvergeMessage;
}

function str(v: unknown, max: number): string | null {
  return typeof v === 'string' && v ? v.slice(0, max) : null;
}

/** The revision the run converged: chef-client sets node.automatic.policy_revision when it loads the policy. */
function revisionOf(m: RunConvergeMessage): string | null {
  const auto = (m.node?.automatic ?? {}) as Record<string, unknown>;
  const rev = str(auto.policy_revision, 255);
  return rev && NAME_PATTERN.test(rev) ? rev : null;
}

export interface StoredResource {
  type: string;
  name: string;
  status: string;
  action: string | null;
  duration_ms: number | null;
  cookbook: string | null;
  cookbook_version: string | null;
  recipe: string | null;
  error: string | null;
}

function resourceRows(m: RunConvergeMessage): StoredResource[] {
  return m.resources.slice(0, MAX_STORED_RESOURCES).map((r) => {
    const d = typeof r.duration === 'number' ? r.duration : r.duration ? Number(r.duration) : NaN;
    return {
      type: r.type.slice(0, 200),
      name: (r.name ?? r.id ?? '').slice(0, 1000),
      status: r.status.slice(0, 40),
      action: r.result,
      duration_ms: Number.isFinite(d) ? Math.max(0, Math.round(d)) : null,
      cookbook: r.cookbook_name,
      cookbook_version: r.cookbook_version,
      recipe: r.recipe_name,
      error: r.error_message ?? r.error?.message ?? null,
    };
  });
}

/** Who may report a run for `nodeName` in `stage`. */
function assertMaySend(sender: DataCollectorSender, nodeName: string, stage: string | null, stageKnown: boolean): void {
  if (sender.kind === 'token') return;
  const a = sender.actor;
  // The one rule for writing a node's facts (a client: only its own node; a user: node.report on the stage, admins for none).
  if (can(a, 'node.report', { node: nodeName, stage: stage && stageKnown ? stage : null })) return;
  if (a.kind === 'client') {
    if (a.validator) throw forbidden(`Client '${a.name}' may not report chef-client runs.`);
    throw forbidden(`Client '${a.name}' may only report its own runs, not node '${nodeName}'s.`);
  }
  throw forbidden(stage && stageKnown ? `You may not report chef-client runs in stage '${stage}'.` : 'Only administrators may report runs of nodes in no known stage.');
}

export interface IngestResult {
  run_id: string;
  message_type: 'run_start' | 'run_converge';
  status: string;
}

/**
 * Stores one data collector message (one transaction). `body` is the parsed
 * JSON; the caller bounds its size (dataCollectorMaxBytes). A finished run
 * then feeds the stage's rollout (rollout.failed / converged, automatic
 * rollback), in its own transaction, without failing the ingest.
 */
export async function ingestRunMessage(sender: DataCollectorSender, body: unknown, opts: { now?: Date; requestId?: string } = {}): Promise<IngestResult> {
  const m = parseMessage(body);
  const now = opts.now ?? new Date();
  const clientName = sender.kind === 'actor' && sender.actor.kind === 'client' ? sender.actor.name : null;
  if (m.message_type === 'run_start') {
    await transaction(async (tx) => {
      // A run_start names no stage: a user's is checked against the stage the node is in.
      const stage = sender.kind === 'actor' && sender.actor.kind === 'user' ? ((await tx.node.findUnique({ where: { name: m.node_name }, select: { group: { select: { name: true } } } }))?.group?.name ?? null) : null;
      assertMaySend(sender, m.node_name, stage, !!stage);
      const existing = await tx.runReport.findUnique({ where: { runId: m.run_id }, select: { nodeName: true } });
      if (existing) {
        if (existing.nodeName !== m.node_name) throw conflict(`Run '${m.run_id}' belongs to another node`);
        return; // a retried run_start, or it came after run_converge: nothing to add
      }
      await tx.runReport.create({ data: { runId: m.run_id, nodeName: m.node_name, clientName, status: 'started', startTime: m.start_time, source: m.source ?? 'chef_client', receivedAt: now } });
    });
    return { run_id: m.run_id, message_type: 'run_start', status: 'started' };
  }

  const nodeDoc = m.node ?? {};
  if (nodeDoc.name !== undefined && nodeDoc.name !== m.node_name) throw badRequest('node.name must equal node_name', [{ path: '/node/name', message: 'must equal node_name' }]);
  const group = m.policy_group ?? str(nodeDoc.policy_group, 255);
  const policy = m.policy_name ?? str(nodeDoc.policy_name, 255);
  const revisionId = revisionOf(m);
  const resources = resourceRows(m);
  const failedRes = m.resources.find((r) => r.status === 'failed');
  const failed = m.resources.filter((r) => r.status === 'failed').length;
  const updated = m.updated_resource_count ?? m.resources.filter((r) => r.status === 'updated').length;
  const chefVersion = str((nodeDoc.automatic as { chef_packages?: { chef?: { version?: unknown } } } | undefined)?.chef_packages?.chef?.version, 40);
  const deprecations = m.deprecations.slice(0, MAX_DEPRECATIONS).map((d) => {
    const o = (d && typeof d === 'object' ? d : {}) as Record<string, unknown>;
    return { message: str(o.message, 1000), url: str(o.url, 500), location: str(o.location, 500) };
  });
  const endTime = m.end_time;
  const durationMs = Math.max(0, endTime.getTime() - m.start_time.getTime());
  const report = {
    nodeName: m.node_name,
    clientName,
    groupName: group,
    policyName: policy,
    revisionId,
    status: m.status,
    startTime: m.start_time,
    endTime,
    durationMs,
    totalResources: m.total_resource_count ?? m.resources.length,
    updatedResources: updated,
    failedResources: failed,
    errorClass: m.status === 'failure' ? (m.error?.class ?? failedRes?.error?.class ?? null) : null,
    errorMessage: m.status === 'failure' ? (m.error?.message ?? failedRes?.error_message ?? null) : null,
    failedResource: failedRes ? `${failedRes.type}[${(failedRes.name ?? failedRes.id ?? '').slice(0, 900)}]` : null,
    failedCookbook: failedRes?.cookbook_name ?? null,
    failedRecipe: failedRes?.recipe_name ?? null,
    resources: JSON.stringify(resources),
    deprecations: JSON.stringify(deprecations),
    chefVersion,
    source: m.source ?? 'chef_client',
    receivedAt: now,
  };

  const stored = await transaction(async (tx) => {
    const stageKnown = group ? !!(await tx.policyGroup.findUnique({ where: { name: group }, select: { id: true } })) : false;
    assertMaySend(sender, m.node_name, group, stageKnown);
    const existing = await tx.runReport.findUnique({ where: { runId: m.run_id }, select: { id: true, nodeName: true, status: true } });
    if (existing && existing.nodeName !== m.node_name) throw conflict(`Run '${m.run_id}' belongs to another node`);
    if (existing && existing.status !== 'started') return { duplicate: true }; // a retried run_converge: the first one counts
    if (existing) await tx.runReport.update({ where: { id: existing.id }, data: report });
    else await tx.runReport.create({ data: { runId: m.run_id, ...report } });
    await updateNodeState(tx, { ...report, runId: m.run_id });
    return { duplicate: false };
  });
  if (!stored.duplicate && group && policy) {
    try {
      await afterRunReported({ group, policy, revisionId, status: m.status, nodeName: m.node_name, failedResource: report.failedResource, failedCookbook: report.failedCookbook, errorMessage: report.errorMessage, endTime }, now);
    } catch (e) {
      // The run is stored; the rollout's evaluation runs again with the next report (and the worker's pass).
      if (!(e instanceof AppError)) console.error('[data-collector] rollout evaluation failed', e);
    }
  }
  return { run_id: m.run_id, message_type: 'run_converge', status: m.status };
}

/** Keeps the node's latest finished run (a report older than the one kept changes nothing). */
async function updateNodeState(
  tx: Tx,
  r: { nodeName: string; groupName: string | null; policyName: string | null; revisionId: string | null; status: string; runId: string; endTime: Date; failedResource: string | null; failedCookbook: string | null; errorClass: string | null; receivedAt: Date },
): Promise<void> {
  const prev = await tx.nodeRunState.findUnique({ where: { nodeName: r.nodeName }, select: { endTime: true, revisionId: true, status: true, firstSuccessAt: true } });
  if (prev && prev.endTime.getTime() > r.endTime.getTime()) return;
  const firstSuccessAt = r.status !== 'success' ? null : prev && prev.status === 'success' && prev.revisionId === r.revisionId && prev.firstSuccessAt ? prev.firstSuccessAt : r.endTime;
  const data = {
    groupName: r.groupName,
    policyName: r.policyName,
    revisionId: r.revisionId,
    status: r.status,
    runId: r.runId,
    endTime: r.endTime,
    failedResource: r.failedResource,
    failedCookbook: r.failedCookbook,
    errorClass: r.errorClass,
    firstSuccessAt,
    receivedAt: r.receivedAt,
  };
  if (prev) await tx.nodeRunState.update({ where: { nodeName: r.nodeName }, data });
  else await tx.nodeRunState.create({ data: { nodeName: r.nodeName, ...data } });
}

/** Reads the token form's header: the configured DATA_COLLECTOR_TOKEN (unset: the token form is off). */
export function dataCollectorToken(): string | null {
  const t = process.env.DATA_COLLECTOR_TOKEN?.trim();
  return t ? t : null;
}

/** Retention: run reports older than RUN_RETENTION_DAYS (default 30) are deleted by the cleanup job. */
export function runRetentionDays(): number {
  const n = Number(process.env.RUN_RETENTION_DAYS);
  return Number.isFinite(n) && n > 0 ? n : 30;
}

/** Deletes run reports that ended (or started, for runs that never finished) before the retention period; returns how many. */
export async function cleanupRunReports(now = new Date(), days = runRetentionDays()): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  let total = 0;
  // In batches, so a large backlog never holds one long write transaction.
  for (;;) {
    const ids = await db().runReport.findMany({ where: { startTime: { lt: cutoff } }, select: { id: true }, take: 1000 });
    if (!ids.length) break;
    total += (await db().runReport.deleteMany({ where: { id: { in: ids.map((r) => r.id) } } })).count;
    if (ids.length < 1000) break;
  }
  return total;
}
