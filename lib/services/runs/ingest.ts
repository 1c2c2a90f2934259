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
 * with node.report on the node's stage (admins for a node in no stage); or, on
 * Automate's path (/data-collector/v0), the shared DATA_COLLECTOR_TOKEN. The
 * validator may not.
 *
 * Issue 41, where a run counts: in the stage the console has the node in (its
 * node row's stage and policy), never the stage or policy the message names.
 * A report naming another stage or policy than the node's is refused (403,
 * naming the node's stage and how to move it) and nothing is stored; a node the
 * console has in no stage (or does not know) has its runs stored, counted in no
 * stage. Reported text is bounded (REPORT_TEXT_MAX) before it is stored.
 */
import { z } from 'zod';
import { db } from '@/lib/db/client';
import { writeRunMessages, type RunWrite, type RunWriteOutcome } from './ingest-queries';
import { can, type Actor } from '@/lib/auth/permissions';
import { NAME_PATTERN } from '@/lib/domain';
import { AppError, asAppError, badRequest, conflict, forbidden } from '@/lib/errors';
import { groupCommit } from './group-commit';
import { processState } from '@/lib/process-state';
import { evaluateAfterRun } from './health';
import { judgeRingsAfterRun } from '@/lib/services/rings';
import { assertStageClaim, nodeStage as consoleNodeStage } from '@/lib/services/stages';

/** Who sent a message: a Chef requestor (signed) or the Automate-style token. */
export type DataCollectorSender = { kind: 'actor'; actor: Actor } | { kind: 'token' };

/** At most this many resources are kept per run (the counts keep the real totals). */
export const MAX_STORED_RESOURCES = 2000;
const MAX_DEPRECATIONS = 100;

/** Issue 41: the longest error message kept of a run (a node's own words, shown on pages and in events). */
export const REPORT_TEXT_MAX = 1000;
/** Issue 41: the longest failed-resource name kept ("type[name]"). */
export const REPORT_RESOURCE_MAX = 300;

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
    error_message: text(REPORT_TEXT_MAX),
    error: z.object({ class: text(200), message: text(REPORT_TEXT_MAX) }).passthrough().optional(),
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
      .object({ class: text(200), message: text(REPORT_TEXT_MAX), description: z.unknown().optional() })
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
 * Messages are written by group commit (lib/services/runs/group-commit.ts):
 * those that arrive together share one transaction of prepared statements
 * (lib/services/runs/ingest-queries.ts), and each is answered after that commit.
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

/** The stage and policy the console has a node in (its node row), null when it has none (or no such node). */
async function nodeStanding(nodeName: string): Promise<{ stage: string | null; policy: string | null }> {
  // The stage: the one answer to "which stage is this node in" (lib/services/stages/binding.ts); the policy: its node row's.
  const [stage, n] = await Promise.all([consoleNodeStage(nodeName), db().node.findUnique({ where: { name: nodeName }, select: { policy: { select: { name: true } } } })]);
  return { stage, policy: n?.policy?.name ?? null };
}

/**
 * Issue 41: a report counts where the console has the node, so one naming another stage (or policy) than the
 * node's is refused: a client cannot make its failures count against a stage it was not placed in.
 */
function assertNamesNodeStage(nodeName: string, named: { stage: string | null; policy: string | null }, node: { stage: string | null; policy: string | null }): void {
  const how = `its runs count there. To report runs for another stage, move the node in the console (or with knife as a user who manages both stages) first.`;
  if (named.stage && node.stage && named.stage !== node.stage) {
    throw new AppError('forbidden', `Node '${nodeName}' is in stage '${node.stage}' in the console, not '${named.stage}': ${how}`, [{ path: '/policy_group', message: `must be '${node.stage}', the stage the console has the node in` }], { node_stage: node.stage });
  }
  if (named.policy && node.policy && named.policy !== node.policy) {
    throw new AppError('forbidden', `Node '${nodeName}' runs policy '${node.policy}' in the console, not '${named.policy}': ${how}`, [{ path: '/policy_name', message: `must be '${node.policy}', the node's policy in the console` }], { node_policy: node.policy });
  }
}

/**
 * Stores one data collector message. `body` is the parsed JSON; the caller
 * bounds its size (dataCollectorMaxBytes, lib/config.ts). The answer comes after the
 * message's transaction committed. A finished run then feeds the stage's
 * rollout (rollout.failed / converged, automatic rollback; coalesced per
 * stage and policy, see evaluateAfterRun) without failing the ingest.
 */
export async function ingestRunMessage(sender: DataCollectorSender, body: unknown, opts: { now?: Date; requestId?: string } = {}): Promise<IngestResult> {
  const m = parseMessage(body);
  const now = opts.now ?? new Date();
  const clientName = sender.kind === 'actor' && sender.actor.kind === 'client' ? sender.actor.name : null;
  const node = await nodeStanding(m.node_name);
  if (m.message_type === 'run_start') {
    assertMaySend(sender, m.node_name, node.stage, !!node.stage);
    // A retried run_start, or one that came after run_converge, adds nothing.
    await store({ kind: 'start', runId: m.run_id, nodeName: m.node_name, clientName, startTime: m.start_time, source: m.source ?? 'chef_client', receivedAt: now });
    return { run_id: m.run_id, message_type: 'run_start', status: 'started' };
  }

  const nodeDoc = m.node ?? {};
  if (nodeDoc.name !== undefined && nodeDoc.name !== m.node_name) throw badRequest('node.name must equal node_name', [{ path: '/node/name', message: 'must equal node_name' }]);
  // Issue 41: the run counts in the stage and policy the console has the node in; a message naming others is refused.
  const named = { stage: m.policy_group ?? str(nodeDoc.policy_group, 255), policy: m.policy_name ?? str(nodeDoc.policy_name, 255) };
  assertMaySend(sender, m.node_name, node.stage, !!node.stage);
  // Stage binding's one stage-claim check (a node's client may name only its node's stage, or one it may enroll into)…
  if (sender.kind === 'actor') await assertStageClaim(sender.actor, named.stage, 'run report');
  // …and, for every sender, the stage and policy a run counts in are the node row's: a report naming others is refused.
  assertNamesNodeStage(m.node_name, named, node);
  const counted = !!(node.stage && node.policy);
  const group = counted ? node.stage : null;
  const policy = counted ? node.policy : null;
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
    // The clock's duration as reported (chef-client's times are whole seconds): a run that ended in the second it
    // started stores 0, which the console shows as "under 1 s" (components/node-run-history.tsx runDuration, issue 43).
    durationMs: Math.max(0, endTime.getTime() - m.start_time.getTime()),
    totalResources: m.total_resource_count ?? m.resources.length,
    updatedResources: updated,
    failedResources: failed,
    errorClass: m.status === 'failure' ? (m.error?.class ?? failedRes?.error?.class ?? null) : null,
    errorMessage: m.status === 'failure' ? (m.error?.message ?? failedRes?.error_message ?? null) : null,
    failedResource: failedRes ? `${failedRes.type}[${failedRes.name ?? failedRes.id ?? ''}]`.slice(0, REPORT_RESOURCE_MAX) : null,
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
    // Issue 40: a ring node's failure is judged as it is reported (a ring that rolls back on failure ends now), not only by the worker's pass.
    try {
      await judgeRingsAfterRun({ stage: group, policy, revisionId, status: m.status }, now);
    } catch (e) {
      // The run is stored; the worker's pass judges the ring again.
      console.error('[rings] judging a ring after a run failed', e);
    }
  }
  return { run_id: m.run_id, message_type: 'run_converge', status: m.status };
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
