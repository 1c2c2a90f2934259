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
import { db } from '@/lib/db/client';
import { writeRunMessages, type RunWrite, type RunWriteOutcome } from '@/lib/db/queries/run-ingest';
import { can, type Actor } from '@/lib/auth/permissions';
import { NAME_PATTERN } from '@/lib/domain';
import { asAppError, badRequest, conflict, forbidden } from '@/lib/errors';
import { groupCommit } from './internal/group-commit';
import { processState } from '@/lib/process-state';
import { evaluateAfterRun } from './rollout';
import { assertStageClaim, nodeStage as consoleNodeStage } from './stage-binding';

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
 * Messages are written by group commit (lib/services/internal/group-commit.ts):
 * those that arrive together share one transaction of prepared statements
 * (lib/db/queries/run-ingest.ts), and each is answered after that commit.
 * A batch the database refused for a reason of its own (busy, a write
 * conflict, no connection: a 503 or 409 to retry) fails whole; any other
 * failure is retried message by message, so a bad message fails alone.
 * One queue per process (lib/process-state.ts), whichever copy of this module is asked.
 */
const writeRun = processState('data-collector.write-run', () => groupCommit(writeRunMessages, { split: (e) => !asAppError(e) }));

/** The outcome of one write: a run_id that is another node's run is a 409 (nothing was stored). */
async function store(w: RunWrite): Promise<RunWriteOutcome> {
  const outcome = await writeRun(w);
  if (outcome === 'other-node') throw conflict(`Run '${w.runId}' belongs to another node`);
  return outcome;
}

/** A run_start names no stage: a user's is checked against the stage the node is in (a client's right does not depend on it). */
async function nodeStage(sender: DataCollectorSender, nodeName: string): Promise<string | null> {
  if (sender.kind !== 'actor' || sender.actor.kind !== 'user') return null;
  // Issue 41: the one answer to "which stage is this node in" (lib/services/stage-binding.ts).
  return consoleNodeStage(nodeName);
}

/** Whether the run's stage exists (a user's right depends on it; a client's and the token's do not). */
async function stageExists(sender: DataCollectorSender, group: string | null): Promise<boolean> {
  if (!group || sender.kind !== 'actor' || sender.actor.kind !== 'user') return false;
  return !!(await db().policyGroup.findUnique({ where: { name: group }, select: { id: true } }));
}

/**
 * Stores one data collector message. `body` is the parsed JSON; the caller
 * bounds its size (dataCollectorMaxBytes). The answer comes after the
 * message's transaction committed. A finished run then feeds the stage's
 * rollout (rollout.failed / converged, automatic rollback; coalesced per
 * stage and policy, see evaluateAfterRun) without failing the ingest.
 */
export async function ingestRunMessage(sender: DataCollectorSender, body: unknown, opts: { now?: Date; requestId?: string } = {}): Promise<IngestResult> {
  const m = parseMessage(body);
  const now = opts.now ?? new Date();
  const clientName = sender.kind === 'actor' && sender.actor.kind === 'client' ? sender.actor.name : null;
  if (m.message_type === 'run_start') {
    const stage = await nodeStage(sender, m.node_name);
    assertMaySend(sender, m.node_name, stage, !!stage);
    // A retried run_start, or one that came after run_converge, adds nothing.
    await store({ kind: 'start', runId: m.run_id, nodeName: m.node_name, clientName, startTime: m.start_time, source: m.source ?? 'chef_client', receivedAt: now });
    return { run_id: m.run_id, message_type: 'run_start', status: 'started' };
  }

  const nodeDoc = m.node ?? {};
  if (nodeDoc.name !== undefined && nodeDoc.name !== m.node_name) throw badRequest('node.name must equal node_name', [{ path: '/node/name', message: 'must equal node_name' }]);
  const group = m.policy_group ?? str(nodeDoc.policy_group, 255);
  const policy = m.policy_name ?? str(nodeDoc.policy_name, 255);
  assertMaySend(sender, m.node_name, group, await stageExists(sender, group));
  // Issue 41 (stage-binding's hook): a node's client may name only the stage the console has its node in.
  if (sender.kind === 'actor') await assertStageClaim(sender.actor, group, 'run report');
  const revisionId = revisionOf(m);
  const resources = resourceRows(m);
  let failedRes: (typeof m.resources)[number] | undefined;
  let failed = 0;
  let updatedCount = 0;
  for (const r of m.resources) {
    if (r.status === 'failed') {
      failed++;
      failedRes ??= r;
    } else if (r.status === 'updated') updatedCount++;
  }
  const updated = m.updated_resource_count ?? updatedCount;
  const chefVersion = str((nodeDoc.automatic as { chef_packages?: { chef?: { version?: unknown } } } | undefined)?.chef_packages?.chef?.version, 40);
  const deprecations = m.deprecations.slice(0, MAX_DEPRECATIONS).map((d) => {
    const o = (d && typeof d === 'object' ? d : {}) as Record<string, unknown>;
    return { message: str(o.message, 1000), url: str(o.url, 500), location: str(o.location, 500) };
  });
  const endTime = m.end_time;
  const report: RunWrite = {
    kind: 'converge',
    runId: m.run_id,
    nodeName: m.node_name,
    clientName,
    groupName: group,
    policyName: policy,
    revisionId,
    status: m.status,
    startTime: m.start_time,
    endTime,
    durationMs: Math.max(0, endTime.getTime() - m.start_time.getTime()),
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

  // A retried run_converge changes nothing (the first one counts) and is not evaluated again.
  const outcome = await store(report);
  if (outcome === 'stored' && group && policy) {
    await evaluateAfterRun({ group, policy, revisionId, status: m.status, nodeName: m.node_name, failedResource: report.failedResource, failedCookbook: report.failedCookbook, errorMessage: report.errorMessage, endTime }, now);
  }
  return { run_id: m.run_id, message_type: 'run_converge', status: m.status };
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
