/**
 * Issue 48: rebuild the dependents of a policy in a stage on the revision the stage now runs, as chef-cli's
 * `chef update` of a Policyfile with `include_policy "<name>", server: …, policy_group: "<stage>"` would
 * (lib/domain/merge/rebuild.ts: the include re-resolved, nothing else re-solved), in include order (a
 * dependent after the dependents it includes, which it then takes rebuilt). A dry run computes and shows
 * everything (the semantic diff, where each change comes from, conflicts) and writes nothing; the write
 * stores every rebuilt revision (origin `rebuild`, its own part kept so the next rebuild is exact), audits
 * each one with the include change that caused it, and moves them into the stage together through the guard
 * (one request on a protected stage), all in one transaction. A conflicting or blocked dependent is listed
 * and nothing is written for it (nor for a dependent that includes it).
 */
import { db, type Tx } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import {
  includeFor,
  parseLossless,
  rebuildDependent,
  rebuildOrder,
  referencedPolicy,
  serializeJson,
  stageDependents,
  type IncludedPolicy,
  type IncludedPolicyLockRef,
  type IncludeLookup,
  type LockDiff,
  type ParentPolicy,
  type PolicyLock,
  type ProvenanceJson,
  provenanceToJson,
} from '@/lib/domain';
import { loadStageIncludes, revisionsByPolicyAndId, type IncludeGraph } from '@/lib/db/queries/include-graph';
import { badRequest } from '@/lib/errors';
import type { IncludeChangeDto, ProvenanceDto, RebuildChangeDto, RebuildDependentsDto, RebuildItemDto } from '@/lib/types/dependents';
import type { RebuildDependentsInput } from '@/lib/validation/dependents';
import {
  audit,
  moveTogether,
  previewJointMove,
  requireGroup,
  emitEvent,
  assertExpected,
  type PromotionRequestDto,
  transaction,
  checkRevision,
  storeRevision,
} from '@/lib/services/funnel';
import { requirePolicyNamed } from './list';

export type RebuildDependentsResult = RebuildDependentsDto & { request?: PromotionRequestDto | null };

const short = (r: string | null | undefined) => (r ? r.slice(0, 10) : 'nothing');

/** What a rebuilt revision keeps as its origin: its own part (exact for the next rebuild or compose), its includes, what caused it. */
interface RebuildOrigin {
  parent: ParentPolicy;
  includes: { name: string; source: Record<string, unknown>; source_options: Record<string, unknown>; revision_id: string }[];
  rebuild: { policy: string; stage: string; revision_id: string; from_revision_id: string; caused_by: IncludeChangeDto | null };
}

/** The source a compose re-lock would use for an include (the compose page's form), from its source options. */
function composeSource(so: Record<string, unknown>): Record<string, unknown> {
  if (typeof so.server === 'string' && typeof so.policy_name === 'string') return { type: 'server', policy: so.policy_name, ...(typeof so.policy_group === 'string' ? { group: so.policy_group } : { revision: so.policy_revision_id }) };
  return { type: 'lock', source_options: so };
}

/** The pointer move that brought the stage's revision of the included policy (its audit event). */
async function includeChange(client: Tx, stage: string, policy: string, revisionId: string): Promise<IncludeChangeDto> {
  const rows = await client.auditEvent.findMany({
    where: { groupName: stage, policyName: policy, targetType: 'pointer', action: { startsWith: 'pointer.' } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 20,
    select: { id: true, before: true, after: true, createdAt: true, actorEmail: true },
  });
  for (const r of rows) {
    const after = r.after ? (JSON.parse(r.after) as { revision_id?: string | null }) : {};
    if (after.revision_id !== revisionId) continue;
    const before = r.before ? (JSON.parse(r.before) as { revision_id?: string | null }) : {};
    return { audit_id: r.id, from_revision_id: before.revision_id ?? null, to_revision_id: revisionId, at: r.createdAt.toISOString(), by: r.actorEmail };
  }
  return { audit_id: null, from_revision_id: null, to_revision_id: revisionId, at: null, by: null };
}

interface StoredDoc {
  pk: string;
  policyId: string;
  lock: PolicyLock;
  origin: string;
  originDetail: string | null;
}

/** Stored revisions by (policy, revision id), loaded in one statement per call. */
async function loadDocs(client: Tx, wanted: { policy: string; revisionId: string }[]): Promise<Map<string, StoredDoc>> {
  const out = new Map<string, StoredDoc>();
  const uniq = new Map(wanted.map((w) => [`${w.policy}\n${w.revisionId}`, w]));
  if (!uniq.size) return out;
  const rows = await revisionsByPolicyAndId<{ id: string; policyId: string; revisionId: string; document: string; origin: string; originDetail: string | null; policy: { name: string } }>(client, [...uniq.values()], { id: true, policyId: true, revisionId: true, document: true, origin: true, originDetail: true, policy: { select: { name: true } } });
  // Lossless: number lexemes and key order reach the rebuilt lock's id and bytes.
  for (const r of rows) out.set(`${r.policy.name}\n${r.revisionId}`, { pk: r.id, policyId: r.policyId, lock: parseLossless(r.document) as PolicyLock, origin: r.origin, originDetail: r.originDetail });
  return out;
}

/** The include-cycle check's view of stored revisions (only their includes matter to it). */
function cycleLookup(graph: IncludeGraph): IncludeLookup {
  return (policy, revisionId) => {
    const n = graph.lookup(policy, revisionId);
    return n ? { name: policy, revision_id: revisionId, run_list: [], cookbook_locks: {}, included_policy_locks: n.includes } : undefined;
  };
}

/** Where each change of a rebuilt dependent comes from, in words the preview shows ("from base … via mid"). */
function changesOf(diff: LockDiff, provenance: ProvenanceJson, origin: (source: string, kind: 'cookbook' | 'run_list' | 'attribute', key: string) => ProvenanceDto | null): RebuildChangeDto[] {
  const out: RebuildChangeDto[] = [];
  for (const c of diff.cookbooks) {
    const text = c.from && c.to ? `${c.name} ${c.from.version} → ${c.to.version} (${c.kind.replace('_', ' ')}${c.level ? `, ${c.level}` : ''})` : `${c.name} ${c.kind}${c.to ? ` ${c.to.version}` : c.from ? ` ${c.from.version}` : ''}`;
    const src = provenance.cookbooks[c.name];
    out.push({ kind: 'cookbook', text, from: src ? origin(src, 'cookbook', c.name) : null });
  }
  for (const r of diff.runList) {
    const src = provenance.runList[r.item];
    out.push({ kind: 'run_list', text: `${r.item} ${r.kind}`, from: src ? origin(src, 'run_list', r.item) : null });
  }
  for (const n of diff.namedRunLists) out.push({ kind: 'named_run_list', text: `named run list ${n.name} ${n.kind}`, from: null });
  for (const a of diff.attributes) {
    const src = provenance.attributes[a.precedence][a.pathText];
    out.push({ kind: 'attribute', text: `${a.precedence} ${a.path.join('.')} ${a.kind}`, from: src ? origin(src, 'attribute', `${a.precedence}|${a.pathText}`) : null });
  }
  return out;
}

interface Plan {
  item: RebuildItemDto;
  lock?: PolicyLock;
  own?: ParentPolicy;
  policyId: string;
  provenance?: ProvenanceJson;
  /** The includes it was rebuilt with (for the origin). */
  includes?: { name: string; source_options: Record<string, unknown>; revision_id: string }[];
}

/** `POST /policy_groups/:group/policies/:name/rebuild-dependents`: view on the stage for a dry run, promote to write. */
export async function rebuildDependents(access: Access, input: RebuildDependentsInput): Promise<RebuildDependentsResult> {
  const work = async (tx: Tx): Promise<RebuildDependentsResult> => {
    const group = await requireGroup(tx, input.stage, access);
    if (!input.dryRun) assertCan(access, 'stage.promote', { stage: group.name });
    await requirePolicyNamed(tx, input.policy);
    const { stage, graph } = await loadStageIncludes(tx, group.id);
    const target = stage.get(input.policy);
    if (!target) throw badRequest(`Stage '${group.name}' runs no revision of '${input.policy}': there is nothing to rebuild its dependents on`, [{ path: '/policy', message: 'not in this stage' }]);
    const dependents = stageDependents(stage, input.policy, target.revisionId, graph.lookup);
    const byName = new Map(dependents.map((d) => [d.policy, d]));
    if (input.policies) {
      const errors = input.policies.flatMap((p, i) => (byName.has(p) ? [] : [{ path: `/policies/${i}`, message: `'${p}' does not include '${input.policy}' in '${group.name}'` }]));
      if (errors.length) throw badRequest(errors[0].message, errors);
    }
    const expectedNow: Record<string, string | null> = { [input.policy]: target.revisionId };
    for (const d of dependents) expectedNow[d.policy] = d.revision_id;
    if (input.expected) for (const [p, rev] of Object.entries(input.expected)) assertExpected(group.name, p, stage.get(p)?.revisionId ?? null, rev);

    // What is rebuilt: dependents carrying an older revision (or the ones named), in include order.
    const chosen = dependents.filter((d) => (input.policies ? input.policies.includes(d.policy) : !d.current));
    const set = new Map(chosen.map((d) => [d.policy, stage.get(d.policy)!]));
    const { order, cycle } = rebuildOrder(set);
    const causedBy = await includeChange(tx, group.name, input.policy, target.revisionId);

    // Documents: each dependent's current revision, every include it carries, the stage's revisions it re-resolves.
    const wanted = [{ policy: input.policy, revisionId: target.revisionId }];
    for (const p of set.keys()) {
      const node = stage.get(p)!;
      wanted.push({ policy: p, revisionId: node.revisionId });
      for (const ref of node.includes) wanted.push({ policy: referencedPolicy(ref), revisionId: ref.revision_id });
    }
    const docs = await loadDocs(tx, wanted);
    const doc = (policy: string, rev: string) => docs.get(`${policy}\n${rev}`);
    const lookup = cycleLookup(graph);

    const plans = new Map<string, Plan>();
    const item = (policy: string, status: RebuildItemDto['status'], message: string, extra: Partial<RebuildItemDto> = {}): RebuildItemDto => ({
      policy,
      status,
      from_revision_id: stage.get(policy)!.revisionId,
      to_revision_id: null,
      message,
      includes: [],
      diff: null,
      changes: [],
      conflicts: [],
      warnings: [],
      problems: [],
      ...extra,
    });
    for (const p of cycle) plans.set(p, { policyId: stage.get(p)!.policyId, item: item(p, 'blocked', `${p} is in an include loop with other dependents; it is not rebuilt`, { problems: [`include loop among ${cycle.join(', ')}`] }) });

    for (const p of order) {
      const node = stage.get(p)!;
      const current = doc(p, node.revisionId)!;
      const refs: IncludedPolicyLockRef[] = current.lock.included_policy_locks ?? [];
      const carried: IncludedPolicy[] = [];
      const next: (IncludedPolicy | null)[] = [];
      const includes: RebuildItemDto['includes'] = [];
      const problems: string[] = [];
      let pinned: string | null = null;
      for (const ref of refs) {
        const q = referencedPolicy(ref);
        const was = doc(q, ref.revision_id);
        if (!was) {
          problems.push(`its include '${ref.name}' (${q} ${short(ref.revision_id)}) is not stored in the console, so its lock cannot be merged again here`);
          continue;
        }
        carried.push(includeFor(ref, was.lock));
        const so = ref.source_options ?? {};
        let becomes: { lock: PolicyLock } | null = null;
        if (q === input.policy || set.has(q)) {
          if (typeof so.server !== 'string') {
            problems.push(`it includes ${q} from ${typeof so.path === 'string' ? `a file (${so.path})` : typeof so.git === 'string' ? `git (${so.git})` : 'elsewhere'}, not from this server: rebuild it with chef-cli`);
          } else if (typeof so.policy_group !== 'string') {
            pinned = `it includes ${q} by revision id (${short(ref.revision_id)}): chef update keeps a pinned revision`;
          } else if (q === input.policy) becomes = { lock: doc(q, target.revisionId)!.lock };
          else {
            const dep = plans.get(q)!;
            if (dep.item.status === 'rebuilt') becomes = { lock: dep.lock! };
            else if (dep.item.status === 'unchanged') becomes = { lock: doc(q, stage.get(q)!.revisionId)!.lock };
            else problems.push(`its include ${q} is not rebuilt (${dep.item.status})`);
          }
        }
        if (becomes && becomes.lock.revision_id !== ref.revision_id) {
          const source_options = { ...so, policy_revision_id: becomes.lock.revision_id, ...(typeof so.policy_group === 'string' ? { policy_group: group.name } : {}) };
          next.push(includeFor({ name: ref.name, source_options }, becomes.lock));
          includes.push({ name: ref.name, policy: q, from_revision_id: ref.revision_id, to_revision_id: becomes.lock.revision_id, moved: true, source: source_options });
        } else {
          next.push(null);
          includes.push({ name: ref.name, policy: q, from_revision_id: ref.revision_id, to_revision_id: ref.revision_id, moved: false, source: so });
        }
      }
      if (pinned) {
        plans.set(p, { policyId: node.policyId, item: item(p, 'pinned', `${p} is not rebuilt: ${pinned}`, { includes }) });
        continue;
      }
      if (problems.length) {
        plans.set(p, { policyId: node.policyId, item: item(p, 'blocked', `${p} cannot be rebuilt here: ${problems[0]}`, { includes, problems }) });
        continue;
      }
      // Its own part: exact when the console composed or rebuilt it (kept with the revision), else taken apart from the lock.
      let own: ParentPolicy | undefined;
      if ((current.origin === 'compose' || current.origin === 'rebuild') && current.originDetail) {
        const detail = parseLossless(current.originDetail) as { parent?: ParentPolicy };
        if (detail.parent) own = { ...detail.parent, name: p };
      }
      const r = rebuildDependent({ lock: current.lock, own, carried, next, lookup });
      if (!r.ok && r.kind === 'unreadable') {
        plans.set(p, { policyId: node.policyId, item: item(p, 'blocked', `${p} cannot be rebuilt here: ${r.problems[0]}`, { includes, problems: r.problems }) });
        continue;
      }
      if (!r.ok) {
        const conflicts = r.conflicts.map((c) => ({ kind: c.kind, message: c.message, sources: c.sources, ...(c.path ? { path: c.path } : {}), ...(c.pointer ? { pointer: c.pointer } : {}), ...(c.cookbook ? { cookbook: c.cookbook } : {}), ...(c.values ? { values: c.values } : {}) }));
        plans.set(p, {
          policyId: node.policyId,
          item: item(p, 'conflict', `${p} conflicts with the new ${input.policy} (${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}): nothing is written for it`, { includes, conflicts, warnings: r.warnings.map((w) => ({ kind: w.kind, message: w.message })) }),
        });
        continue;
      }
      const provenance = provenanceToJson(r.provenance);
      const status = r.unchanged ? 'unchanged' : 'rebuilt';
      plans.set(p, {
        policyId: node.policyId,
        lock: r.lock,
        own: r.own,
        provenance,
        includes: includes.map((i) => ({ name: i.name, source_options: i.source, revision_id: i.to_revision_id })),
        item: item(p, status, status === 'unchanged' ? `${p} already has what the stage's ${input.policy} brings` : `${p} ${short(node.revisionId)} → ${short(r.lock.revision_id)}: ${r.diff.summary.total} change${r.diff.summary.total === 1 ? '' : 's'} from the new ${input.policy}`, {
          to_revision_id: status === 'rebuilt' ? r.lock.revision_id : null,
          includes,
          diff: r.diff,
          warnings: r.warnings.map((w) => ({ kind: w.kind, message: w.message })),
        }),
      });
    }

    // Where each change comes from: the include it came through and, for a rebuilt include, where it had it from.
    const originOf = (p: string, source: string, kind: 'cookbook' | 'run_list' | 'attribute', key: string, depth = 0): ProvenanceDto | null => {
      const plan = plans.get(p);
      const inc = plan?.item.includes.find((i) => i.name === source);
      if (!inc) return null;
      const sub = plans.get(inc.policy);
      if (inc.policy !== input.policy && sub?.provenance && depth < 20) {
        const prov = sub.provenance;
        const [prec, path] = key.split('|');
        const subSource = kind === 'cookbook' ? prov.cookbooks[key] : kind === 'run_list' ? prov.runList[key] : prov.attributes[prec as 'default' | 'override'][path];
        const deeper = subSource ? originOf(inc.policy, subSource, kind, key, depth + 1) : null;
        if (deeper) return { ...deeper, via: [inc.policy, ...deeper.via] };
      }
      return { policy: inc.policy, revision_id: inc.to_revision_id, via: [] };
    };
    for (const [p, plan] of plans) if (plan.item.diff && plan.provenance) plan.item.changes = changesOf(plan.item.diff, plan.provenance, (src, kind, key) => originOf(p, src, kind, key));

    const rebuilds = [...cycle, ...order].map((p) => plans.get(p)!.item);
    // Listed in the order they were rebuilt (include order), loops first.
    const result: RebuildDependentsResult = { stage: group.name, policy: input.policy, revision_id: target.revisionId, dry_run: !!input.dryRun, caused_by: causedBy, expected: expectedNow, rebuilds, written: 0, moved: 0 };
    const ready = [...order].filter((p) => plans.get(p)!.item.status === 'rebuilt');
    if (input.dryRun) {
      result.guard = ready.length
        ? await previewJointMove(
            tx,
            access,
            group,
            ready.map((p) => ({ policy: { id: plans.get(p)!.policyId, name: p }, to: { pk: '', revisionId: plans.get(p)!.lock!.revision_id }, toDocument: plans.get(p)!.lock!, role: 'dependent' as const })),
            'set',
          )
        : null;
      return result;
    }

    // The write: every rebuilt revision stored and audited with its cause, then moved in together.
    const members = [];
    for (const p of ready) {
      const plan = plans.get(p)!;
      const policy = { id: plan.policyId, name: p };
      const revision = checkRevision(serializeJson(plan.lock, 2) + '\n', p, { code: 'unprocessable', what: 'The rebuilt lock' });
      const detail: RebuildOrigin = {
        parent: plan.own!,
        includes: plan.includes!.map((i) => ({ name: i.name, source: composeSource(i.source_options), source_options: i.source_options, revision_id: i.revision_id })),
        rebuild: { policy: input.policy, stage: group.name, revision_id: target.revisionId, from_revision_id: plan.item.from_revision_id, caused_by: causedBy },
      };
      const stored = await storeRevision(tx, access, policy, revision, 'rebuild', detail);
      plan.item.created = stored.created;
      await audit(tx, access, {
        action: 'revision.rebuild',
        targetType: 'revision',
        target: `${p}@${stored.revisionId}`,
        groupName: group.name,
        policyName: p,
        before: { revision_id: plan.item.from_revision_id },
        after: {
          revision_id: stored.revisionId,
          created: stored.created,
          caused_by: { policy: input.policy, stage: group.name, from_revision_id: causedBy.from_revision_id, to_revision_id: target.revisionId, audit_id: causedBy.audit_id },
          includes: plan.item.includes.filter((i) => i.moved).map((i) => ({ name: i.name, policy: i.policy, from_revision_id: i.from_revision_id, to_revision_id: i.to_revision_id })),
        },
        reason: input.reason,
        requestId: input.requestId,
      });
      result.written++;
      members.push({ policy, to: { pk: stored.id, revisionId: stored.revisionId }, role: 'dependent' as const });
    }
    if (members.length) {
      const moved = await moveTogether(tx, access, {
        group,
        members,
        kind: 'set',
        expected: Object.fromEntries(members.map((m) => [m.policy.name, stage.get(m.policy.name)!.revisionId])),
        reason: input.reason ?? `rebuilt on ${input.policy} ${short(target.revisionId)}`,
        overrideReason: input.overrideReason,
        freezeOverrideReason: input.freezeOverrideReason,
        gateOverrideReason: input.gateOverrideReason,
        origin: { rebuild: { policy: input.policy, revision_id: target.revisionId, caused_by: causedBy.audit_id } },
        requestId: input.requestId,
      });
      result.moved = moved.moved.length;
      result.request = moved.request;
      const rebuilt = rebuilds.filter((r) => r.status === 'rebuilt').map((r) => ({ policy: r.policy, from_revision_id: r.from_revision_id, to_revision_id: r.to_revision_id }));
      const refused = rebuilds.filter((r) => r.status === 'conflict' || r.status === 'blocked').map((r) => ({ policy: r.policy, status: r.status, message: r.message }));
      await emitEvent(
        tx,
        'dependents.rebuilt',
        `${access.email} rebuilt ${rebuilt.length} dependent${rebuilt.length === 1 ? '' : 's'} of ${input.policy} ${short(target.revisionId)} in ${group.name} (${rebuilt.map((r) => r.policy).join(', ')})${moved.request ? ': awaiting approval' : ''}${refused.length ? `; ${refused.length} not rebuilt (${refused.map((r) => `${r.policy}: ${r.status}`).join(', ')})` : ''}`,
        { stage: group.name, policy: input.policy, revision_id: target.revisionId, caused_by: causedBy, rebuilt, not_rebuilt: refused, promotion_request: moved.request?.id ?? null, actor: access.email },
        {
          message: {
            title: `Dependents of ${input.policy} rebuilt in ${group.name}`,
            facts: [['Stage', group.name], ['Included policy', `${input.policy} ${short(target.revisionId)}`], ['Rebuilt by', access.email], ...(moved.request ? ([['Promotion request', moved.request.url]] as [string, string][]) : [])],
            changes: [...rebuilt.map((r) => `${r.policy} ${short(r.from_revision_id)} → ${short(r.to_revision_id)}`), ...refused.map((r) => `${r.policy}: ${r.status}`)],
          },
        },
      );
    }
    return result;
  };
  // A dry run reads without opening a write transaction (it would queue behind, and hold up, real writes).
  return input.dryRun ? work(db()) : transaction(work, { timeout: 60_000 });
}
