/**
 * Issue 26, the demo's run history: every demo node gets its last chef-client
 * runs as the data collector would have stored them (RunReport rows and the
 * node's NodeRunState), so the board's rollout health, the node pages and the
 * history views have something to show:
 *
 * - webapp in qa is mid-rollout: one node converged the stage's revision, one
 *   failed on it in nginx (a cookbook that promotion changed), one has not run
 *   it yet;
 * - a production node of base stopped reporting three days ago (missing);
 * - a few older failures that the next run fixed.
 *
 * Six runs per node, about 1,400 rows written by multi-row INSERTs (Prisma's
 * createMany took over a second for them; these take about a tenth); no gate
 * or rollback rule is set.
 */
import { randomUUID } from 'node:crypto';
import { providerOf, type Tx } from '@/lib/db/client';

const MIN = 60_000;
const RUNS_PER_NODE = 6;
const INTERVAL = 30 * MIN;

type Locks = Record<string, { version?: string }>;
type RunRow = Exclude<NonNullable<Parameters<Tx['runReport']['createMany']>[0]>['data'], unknown[]>;
type StateRow = Exclude<NonNullable<Parameters<Tx['nodeRunState']['createMany']>[0]>['data'], unknown[]>;

export async function seedDemoRunHistory(tx: Tx, now: Date): Promise<void> {
  const [nodes, pointers] = await Promise.all([
    tx.node.findMany({ select: { id: true, name: true, revisionApplied: true, lastCheckIn: true, group: { select: { name: true } }, policy: { select: { name: true } } }, orderBy: { name: 'asc' } }),
    tx.groupPolicy.findMany({ select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { revisionId: true, document: true } } } }),
  ]);
  const current = new Map(pointers.map((p) => [`${p.group.name}/${p.policy.name}`, p.revision]));
  const runs: RunRow[] = [];
  const states: StateRow[] = [];
  const previous = new Map<string, string | null>();
  let seq = 0;
  for (const n of nodes) {
    if (!n.group || !n.policy) continue;
    const stage = n.group.name;
    const policy = n.policy.name;
    const stageRev = current.get(`${stage}/${policy}`);
    const locks = stageRev ? (((JSON.parse(stageRev.document) as { cookbook_locks?: Locks }).cookbook_locks ?? {}) as Locks) : {};
    const midRolloutFail = stage === 'qa' && policy === 'webapp' && n.name.endsWith('-02.example.com');
    const missing = stage === 'production' && policy === 'base' && n.name.endsWith('-08.example.com');
    const last = missing ? new Date(now.getTime() - 3 * 24 * 60 * MIN) : (n.lastCheckIn ?? now);
    if (missing) await tx.node.update({ where: { id: n.id }, data: { lastCheckIn: last } });
    let latest: { runId: string; end: Date; status: string; revisionId: string | null; failedResource: string | null; failedCookbook: string | null; errorClass: string | null } | null = null;
    let firstSuccessAt: Date | null = null;
    const kept = RUNS_PER_NODE;
    for (let i = kept - 1; i >= 0; i--) {
      const end = new Date(last.getTime() - i * INTERVAL);
      const duration = 20_000 + ((seq * 7919) % 40_000);
      const start = new Date(end.getTime() - duration);
      // The mid-rollout failure: its latest run on the stage's new revision; before that, the revision it ran before.
      const revisionId = midRolloutFail && i > 0 ? null : n.revisionApplied;
      const oldFailure = (stage === 'dev' && policy === 'base' && n.name.endsWith('-01.example.com') && i === 2) || (stage === 'staging' && policy === 'mysql-primary' && n.name.endsWith('-02.example.com') && i === 4);
      const failure = (midRolloutFail && i === 0) || oldFailure;
      const cookbook = midRolloutFail ? 'nginx' : policy === 'base' ? 'ntp' : 'mysql';
      const resource = midRolloutFail ? 'template[/etc/nginx/nginx.conf]' : policy === 'base' ? 'package[ntp]' : 'service[mysql]';
      const message = midRolloutFail
        ? "template[/etc/nginx/nginx.conf] (nginx::default line 41) had an error: Chef::Mixin::Template::TemplateError: undefined method `[]' for nil:NilClass (http2 listen options)"
        : policy === 'base'
          ? 'package[ntp] (ntp::default line 12) had an error: Mixlib::ShellOut::ShellCommandFailed: Expected process to exit with [0], but received 100 (apt lock held)'
          : 'service[mysql] (mysql::server line 88) had an error: Mixlib::ShellOut::ShellCommandFailed: Job for mysql.service failed';
      const updated = failure ? 1 : i === kept - 1 ? 2 : 0;
      const cbVersion = (name: string) => locks[name]?.version ?? null;
      const resources = [
        ...(updated > 0 && !failure ? [{ type: 'template', name: `/etc/${policy}.conf`, status: 'updated', action: 'create', duration_ms: 41, cookbook: policy, cookbook_version: cbVersion(policy), recipe: 'default', error: null }] : []),
        ...(updated > 1 ? [{ type: 'service', name: policy, status: 'updated', action: 'restart', duration_ms: 812, cookbook: policy, cookbook_version: cbVersion(policy), recipe: 'default', error: null }] : []),
        ...(failure ? [{ type: resource.split('[')[0], name: resource.slice(resource.indexOf('[') + 1, -1), status: 'failed', action: null, duration_ms: 233, cookbook, cookbook_version: cbVersion(cookbook), recipe: 'default', error: message }] : []),
      ];
      const runId = `00000000-demo-4000-8000-${String(++seq).padStart(12, '0')}`;
      runs.push({
        runId,
        nodeName: n.name,
        clientName: null,
        groupName: stage,
        policyName: policy,
        revisionId: revisionId ?? (midRolloutFail ? (await previousRevision(tx, previous, policy, stageRev?.revisionId)) : null),
        status: failure ? 'failure' : 'success',
        startTime: start,
        endTime: end,
        durationMs: duration,
        totalResources: 38 + (seq % 9),
        updatedResources: updated,
        failedResources: failure ? 1 : 0,
        errorClass: failure ? (midRolloutFail ? 'Chef::Mixin::Template::TemplateError' : 'Mixlib::ShellOut::ShellCommandFailed') : null,
        errorMessage: failure ? message : null,
        failedResource: failure ? resource : null,
        failedCookbook: failure ? cookbook : null,
        failedRecipe: failure ? 'default' : null,
        resources: JSON.stringify(resources),
        deprecations: '[]',
        chefVersion: '18.4.64',
        source: 'chef_client',
        receivedAt: end,
      });
      const rev = runs[runs.length - 1].revisionId ?? null;
      if (!failure) firstSuccessAt = latest && latest.status === 'success' && latest.revisionId === rev && firstSuccessAt ? firstSuccessAt : end;
      else firstSuccessAt = null;
      latest = { runId, end, status: failure ? 'failure' : 'success', revisionId: rev, failedResource: failure ? resource : null, failedCookbook: failure ? cookbook : null, errorClass: failure ? 'error' : null };
    }
    if (latest) {
      states.push({
        nodeName: n.name,
        groupName: stage,
        policyName: policy,
        revisionId: latest.revisionId,
        status: latest.status,
        runId: latest.runId,
        endTime: latest.end,
        failedResource: latest.failedResource,
        failedCookbook: latest.failedCookbook,
        errorClass: latest.status === 'failure' ? 'Chef::Mixin::Template::TemplateError' : null,
        firstSuccessAt,
        receivedAt: latest.end,
      });
    }
  }
  await insertRows(tx, 'RunReport', runs.map((r) => ({ id: randomUUID(), ...r })), RUN_TYPES);
  await insertRows(tx, 'NodeRunState', states, STATE_TYPES);
}

type Kind = 'text' | 'int' | 'time';
const RUN_TYPES: Record<string, Kind> = { startTime: 'time', endTime: 'time', receivedAt: 'time', durationMs: 'int', totalResources: 'int', updatedResources: 'int', failedResources: 'int' };
const STATE_TYPES: Record<string, Kind> = { endTime: 'time', firstSuccessAt: 'time', receivedAt: 'time' };

/**
 * Multi-row INSERTs of plain rows (every row with the same keys), 100 rows a
 * statement, on SQLite or PostgreSQL: DateTime columns as the text Prisma
 * writes on SQLite (cast to timestamp(3) on PostgreSQL), ints cast there too.
 */
async function insertRows(tx: Tx, table: string, rows: object[], types: Record<string, Kind>): Promise<void> {
  if (!rows.length) return;
  const pg = providerOf(tx) === 'postgresql';
  const cols = Object.keys(rows[0]);
  for (let i = 0; i < rows.length; i += 100) {
    const chunk = rows.slice(i, i + 100) as Record<string, unknown>[];
    const params: unknown[] = [];
    const values = chunk.map((r) => {
      const cells = cols.map((c) => {
        const v = r[c];
        // Prisma's own SQLite text form of a DateTime ('…T01:02:03.456+00:00'), so text comparisons order alike.
        params.push(v instanceof Date ? v.toISOString().replace(/Z$/, '+00:00') : (v ?? null));
        if (!pg) return '?';
        const kind = types[c] ?? 'text';
        return `$${params.length}${kind === 'time' ? '::timestamp(3)' : kind === 'int' ? '::int' : '::text'}`;
      });
      return `(${cells.join(', ')})`;
    });
    await tx.$executeRawUnsafe(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES ${values.join(', ')}`, ...params);
  }
}

/** The revision a stage ran before its current one (from the seed's pointer history), else the policy's revision before it. */
async function previousRevision(tx: Tx, previous: Map<string, string | null>, policy: string, currentRevisionId: string | undefined): Promise<string | null> {
  const key = `${policy}/${currentRevisionId}`;
  if (previous.has(key)) return previous.get(key)!;
  const revs = await tx.policyRevision.findMany({ where: { policy: { name: policy } }, orderBy: { createdAt: 'asc' }, select: { revisionId: true } });
  const i = revs.findIndex((r) => r.revisionId === currentRevisionId);
  const out = i > 0 ? revs[i - 1].revisionId : null;
  previous.set(key, out);
  return out;
}
