import { db, type Tx } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { COOKBOOK_NAME_PATTERN, MAX_INCLUDE_DEPTH, referencedPolicy, diffLocks, jsonDepth, mergePolicy, NAME_PATTERN, parseLossless, serializeJson, validateLock, type IncludedPolicy, type IncludeLookup, type LockDiff, type MergeConflict, type MergeWarning, type ParentPolicy, type PolicyLock, type ProvenanceJson, provenanceToJson } from '@/lib/domain';
import { AppError, badRequest } from '@/lib/errors';
import {
  audit,
  movePointer,
  type PromotionRequestDto,
  chooseOwnerTeam,
  checkRevision,
  storeRevision,
  assertInputDepth,
  assertStorable,
  MAX_DEPTH,
  transaction,
  guardPreview,
} from '@/lib/services/funnel';
import { gitLimits, readGitFile } from './git-source';
import { findRegisteredRepository } from './git-repositories';

import { childPointer, jsonPointer } from '@/lib/domain/shared/json-pointer';
import type { MovePreviewDto } from '@/lib/types/move-preview';

import type { ComposeInput, IncludeSource } from '@/lib/validation/compose';

export interface ComposeResult {
  lock: PolicyLock;
  provenance: ProvenanceJson;
  /** Against the composed revision named as parent (re-lock), when there is one. */
  previous: { revisionId: string; diff: LockDiff } | null;
  /** 202: saved, but the stage is protected and moving it there opened `request` (issue 28); nothing moved. */
  saved: { revisionId: string; created: boolean; status: 201 | 200 | 202 } | null;
  /** Issue 28: the promotion request "save into stage" opened on a protected stage (null: none). */
  request?: PromotionRequestDto | null;
  /**
   * Issue 29: with `group`, what saving into that stage would do now: the guard's dry run (guardPreview, the
   * judgement movePointer enforces), on the composed lock. Only on a preview (no save).
   */
  guard?: MovePreviewDto | null;
  /** Accepted as chef-cli accepts it, worth a look (the parent's own cookbook replacing an include's). */
  warnings: MergeWarning[];
  includes: { name: string; source: IncludeSource; source_options: Record<string, unknown>; revisionId: string }[];
}

interface ComposeOrigin {
  parent: ParentPolicy;
  includes: { name: string; source: IncludeSource }[];
}

const toParent = (policy: string, lock: Partial<PolicyLock>): ParentPolicy => ({
  name: policy,
  run_list: lock.run_list ?? [],
  ...(lock.named_run_lists ? { named_run_lists: lock.named_run_lists } : {}),
  cookbook_locks: lock.cookbook_locks ?? {},
  default_attributes: lock.default_attributes ?? {},
  override_attributes: lock.override_attributes ?? {},
  ...(lock.solution_dependencies ? { solution_dependencies: lock.solution_dependencies } : {}),
});

async function resolveParent(tx: Tx, policy: string, parent: ComposeInput['parent']) {
  if (!('revision' in parent)) return { parent: toParent(policy, parent as Partial<PolicyLock>), previous: null };
  const rev = await tx.policyRevision.findFirst({ where: { revisionId: parent.revision, policy: { name: policy } }, select: { document: true, origin: true, originDetail: true, revisionId: true } });
  if (!rev) throw badRequest(`Policy '${policy}' has no revision '${parent.revision}'`, [{ path: '/parent/revision', message: 'no such revision' }]);
  // Lossless everywhere a lock feeds a new revision: number lexemes and key order reach the id and the bytes.
  const lock = parseLossless(rev.document) as PolicyLock;
  // A composed revision already holds its includes' content: compose again from its own part.
  // Issue 48: a rebuilt revision keeps its own part the same way.
  if ((rev.origin === 'compose' || rev.origin === 'rebuild') && rev.originDetail) {
    const origin = parseLossless(rev.originDetail) as ComposeOrigin;
    return { parent: { ...origin.parent, name: policy }, previous: { revisionId: rev.revisionId, lock, includes: origin.includes } };
  }
  return { parent: toParent(policy, lock), previous: null };
}

type ResolvedInclude = IncludedPolicy & { revisionId: string };

/** A server include: a stage's current revision (pinned) or a given revision. */
async function resolveServerInclude(tx: Tx, access: Access, inc: { name: string; source: Extract<IncludeSource, { type: 'server' }> }, i: number): Promise<ResolvedInclude> {
  const at = jsonPointer(['includes', i, 'source']);
  const s = inc.source;
  let row: { revisionId: string; document: string } | null = null;
  if (s.group) {
    assertCan(access, 'stage.view', { stage: s.group });
    if (!(await tx.policyGroup.count({ where: { name: s.group } }))) throw badRequest(`There is no stage '${s.group}'`, [{ path: childPointer(at, 'group'), message: 'no such stage' }]);
    const g = await tx.groupPolicy.findFirst({ where: { group: { name: s.group }, policy: { name: s.policy } }, select: { revision: { select: { revisionId: true, document: true } } } });
    if (!g) throw badRequest(`Stage '${s.group}' runs no revision of '${s.policy}'`, [{ path: childPointer(at, 'group'), message: 'policy not in this stage' }]);
    row = g.revision;
  } else {
    row = await tx.policyRevision.findFirst({ where: { revisionId: s.revision!, policy: { name: s.policy } }, select: { revisionId: true, document: true } });
    if (!row) {
      const policyExists = await tx.policy.count({ where: { name: s.policy } });
      throw badRequest(policyExists ? `Policy '${s.policy}' has no revision '${s.revision}'` : `There is no policy '${s.policy}'`, [{ path: childPointer(at, policyExists ? 'revision' : 'policy'), message: 'not found' }]);
    }
  }
  const source_options = { server: 'policy-console', policy_name: s.policy, ...(s.group ? { policy_group: s.group } : {}), policy_revision_id: row.revisionId };
  return { name: inc.name, source_options, lock: parseLossless(row.document) as PolicyLock, revisionId: row.revisionId };
}

/** An uploaded or git include: read and validated outside any transaction (git may touch the network and disk). */
async function resolveFileInclude(inc: { name: string; source: Extract<IncludeSource, { type: 'upload' | 'git' }> }, i: number): Promise<ResolvedInclude> {
  const at = jsonPointer(['includes', i, 'source']);
  const s = inc.source;
  const { text, extra } =
    s.type === 'upload'
      ? { text: typeof s.lock === 'string' ? s.lock : serializeJson(s.lock), extra: { path: s.path ?? `upload:${inc.name}` } as Record<string, unknown> }
      : // Only the registered name goes into the lock: never a URL or its credentials.
        await readGitFile(await findRegisteredRepository(s.repository, at), s.path, s.ref, at).then((r) => ({ text: r.text, extra: { git: s.repository, path: s.path, ref: s.ref, revision: r.commit } as Record<string, unknown> }));
  // What a git file says is not echoed (it may be any file the repository holds); an upload is the caller's own text.
  const quote = s.type === 'upload';
  if (jsonDepth(text, MAX_DEPTH) > MAX_DEPTH) throw badRequest(`Include '${inc.name}' nests deeper than ${MAX_DEPTH} levels`, [{ path: at, message: `Nesting deeper than ${MAX_DEPTH} levels is refused` }]);
  let parsed: unknown;
  try {
    parsed = parseLossless(text);
  } catch (e) {
    throw badRequest(`Include '${inc.name}' is not valid JSON${quote ? `: ${(e as Error).message}` : ''}`, [{ path: at, message: 'not valid JSON' }]);
  }
  const v = validateLock(parsed);
  if (!v.ok) {
    throw badRequest(
      `Include '${inc.name}' is not a valid lock${quote ? `: ${v.errors[0].message}` : ` (${v.errors.length} problem${v.errors.length === 1 ? '' : 's'}, first at '${v.errors[0].path || '/'}')`}`,
      v.errors.map((e) => ({ path: childPointer(at, 'lock') + e.path, message: quote ? e.message : 'invalid value' })),
    );
  }
  return { name: inc.name, source_options: extra, lock: v.lock, revisionId: v.lock.revision_id };
}

/**
 * Loads the stored locks the includes' own included_policy_locks name, level by level (at most
 * MAX_INCLUDE_DEPTH levels), so the merge engine's one cycle rule can follow them without I/O.
 */
async function loadNestedIncludes(tx: Tx, includes: IncludedPolicy[]): Promise<IncludeLookup> {
  const key = (policy: string, rev: string) => `${policy}\n${rev}`;
  const found = new Map<string, PolicyLock>();
  let level = includes.map((inc) => inc.lock);
  for (let depth = 0; level.length && depth < MAX_INCLUDE_DEPTH; depth++) {
    const wanted = new Map<string, { policy: string; rev: string }>();
    for (const lock of level) {
      for (const ref of lock.included_policy_locks ?? []) {
        const policy = referencedPolicy(ref);
        const k = key(policy, ref.revision_id);
        if (!found.has(k) && typeof ref.revision_id === 'string') wanted.set(k, { policy, rev: ref.revision_id });
      }
    }
    if (!wanted.size) break;
    const rows = await tx.policyRevision.findMany({
      where: { OR: [...wanted.values()].map((w) => ({ revisionId: w.rev, policy: { name: w.policy } })) },
      select: { revisionId: true, document: true, policy: { select: { name: true } } },
    });
    level = [];
    for (const row of rows) {
      const lock = parseLossless(row.document) as PolicyLock;
      found.set(key(row.policy.name, row.revisionId), lock);
      level.push(lock);
    }
  }
  return (policy, rev) => found.get(key(policy, rev));
}

/**
 * Composes a policy from a parent and includes (server, upload or git), with
 * cycle detection; optionally saves the result as a new revision (policy
 * owners) and points a stage at it (promote on that stage). Conflicts are a
 * 409 listing every one of them.
 */
/** Where a merge conflict lies, as an RFC 6901 pointer: into the request's parent (run lists), or into the composed lock. */
function conflictPointer(c: MergeConflict): string {
  if (c.field) return '/parent' + c.field;
  if (c.pointer) return c.pointer;
  if (c.cookbook) return jsonPointer(['cookbook_locks', c.cookbook]);
  return '/includes';
}

/**
 * Issue 29: what "save into stage" would do, before the click: the guard's dry run of the move composePolicy's save
 * makes (kind 'set', the composed lock as the target, not stored yet). A policy that does not exist yet runs nowhere.
 */
async function saveIntoStagePreview(tx: Tx, access: Access, stage: string, policy: { id: string; name: string } | null, name: string, lock: PolicyLock, revisionId: string): Promise<MovePreviewDto> {
  assertCan(access, 'stage.view', { stage });
  const group = await tx.policyGroup.findUnique({ where: { name: stage }, select: { id: true, name: true } });
  if (!group) throw badRequest(`There is no stage '${stage}'`, [{ path: '/group', message: 'no such stage' }]);
  const stored = policy ? await tx.policyRevision.findFirst({ where: { policyId: policy.id, revisionId }, select: { id: true } }) : null;
  return guardPreview(tx, access, { group, policy: policy ?? { id: '', name }, to: { pk: stored?.id ?? '', revisionId }, toDocument: stored ? undefined : lock, kind: 'set' });
}

/**
 * Composes (and with `save`, stores) a lock. `input` is parsed at the edge (ZComposeInput); its parent
 * is the one the client sent, as read losslessly (the route hands it on: zod's rebuilt records would lose
 * the named run lists' key order, which chef-cli hashes).
 */
export async function composePolicy(access: Access, input: ComposeInput): Promise<ComposeResult> {
  // Before the merge, which is recursive: a deep input must be a 400, not a stack overflow (issue 17, item 8).
  assertInputDepth(input);
  // Issue 29: `group` without save is the dry run of saving into that stage (the preview carries the guard's answer).
  if (input.group && input.save && input.expectedRevisionId === undefined) {
    throw badRequest('expectedRevisionId is required with group: the revision you saw in that stage (null for none)', [{ path: '/expectedRevisionId', message: 'is required with group' }]);
  }
  const gitCount = input.includes.filter((inc) => inc.source.type === 'git').length;
  const maxGit = gitLimits().maxIncludes;
  if (gitCount > maxGit) throw badRequest(`${gitCount} git includes; at most ${maxGit} per request (GIT_MAX_INCLUDES)`, [{ path: '/includes', message: `at most ${maxGit} git includes` }]);
  // Uploaded and git includes are read before the transaction: network and disk work must not hold the database.
  const fileIncludes = await Promise.all(
    input.includes.map((inc, i) => (inc.source.type === 'server' ? null : resolveFileInclude({ name: inc.name, source: inc.source }, i))),
  );
  // A preview writes nothing: it reads without opening a write transaction (which would queue behind, and hold up, real writes).
  // A save is one transaction, run again if it lost a find-then-create race (internal/retry).
  const run = (work: (tx: Tx) => Promise<ComposeResult>, opts: { timeout: number }) => (input.save ? transaction(work, opts) : work(db()));
  return run(
    async (tx) => {
      const policy = await tx.policy.findUnique({ where: { name: input.policy }, select: { id: true, name: true, ownerTeamId: true } });
      if (!policy && !('revision' in input.parent) && input.save) assertCan(access, 'policy.create');
      if (policy && input.save) assertCan(access, 'policy.upload', { ownerTeamId: policy.ownerTeamId });
      const { parent, previous } = await resolveParent(tx, input.policy, input.parent);
      const includes = [];
      for (const [i, inc] of input.includes.entries()) {
        includes.push(inc.source.type === 'server' ? await resolveServerInclude(tx, access, { name: inc.name, source: inc.source }, i) : fileIncludes[i]!);
      }
      // Cycles are the merge engine's to find (one rule); it follows nested includes through what is loaded here.
      const merged = mergePolicy(parent, includes, { lookup: await loadNestedIncludes(tx, includes) });
      if (!merged.ok) {
        const conflicts = merged.conflicts;
        throw new AppError('conflict', `${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: ${conflicts[0].message}`, conflicts.map((c) => ({ path: conflictPointer(c), message: c.message })), { conflicts, warnings: merged.warnings });
      }
      // The composed lock meets the upload limits whether it is previewed or saved: includes can multiply a small request.
      const text = serializeJson(merged.lock, 2) + '\n';
      assertStorable(text, 'The composed lock');
      // The same validator an upload meets, on the bytes that would be stored: a preview never shows a lock that saving would refuse.
      const revision = checkRevision(text, input.policy, { code: 'unprocessable', what: 'The composed lock' });
      const result: ComposeResult = {
        lock: merged.lock,
        provenance: provenanceToJson(merged.provenance),
        previous: previous ? { revisionId: previous.revisionId, diff: diffLocks(previous.lock, merged.lock) } : null,
        saved: null,
        warnings: merged.warnings,
        includes: includes.map((inc, i) => ({ name: inc.name, source: input.includes[i].source, source_options: inc.source_options, revisionId: inc.revisionId })),
      };
      if (!input.save) {
        if (input.group) result.guard = await saveIntoStagePreview(tx, access, input.group, policy, input.policy, revision.lock, revision.lock.revision_id);
        return result;
      }

      let target = policy;
      if (!target) {
        const ownerTeamId = await chooseOwnerTeam(tx, access, input.ownerTeam);
        target = await tx.policy.create({ data: { name: input.policy, ownerTeamId }, select: { id: true, name: true, ownerTeamId: true } });
        await audit(tx, access, { action: 'policy.create', targetType: 'policy', target: input.policy, policyName: input.policy, after: { ownerTeamId }, requestId: input.requestId });
      }
      const origin: ComposeOrigin = { parent, includes: input.includes.map((inc) => ({ name: inc.name, source: inc.source.type === 'upload' ? { type: 'upload', lock: '(uploaded)' } : inc.source })) };
      const stored = await storeRevision(tx, access, target, revision, 'compose', { ...origin, includes: result.includes.map((r) => ({ name: r.name, source: origin.includes.find((o) => o.name === r.name)!.source, source_options: r.source_options })) });
      if (stored.created) {
        await audit(tx, access, {
          action: 'revision.compose',
          targetType: 'revision',
          target: `${target.name}@${stored.revisionId}`,
          policyName: target.name,
          after: { revision_id: stored.revisionId, includes: result.includes.map((r) => ({ name: r.name, revision_id: r.revisionId })) },
          reason: input.reason,
          requestId: input.requestId,
        });
      }
      if (input.group) {
        assertCan(access, 'stage.view', { stage: input.group });
        const group = await tx.policyGroup.findUnique({ where: { name: input.group }, select: { id: true, name: true } });
        if (!group) throw badRequest(`There is no stage '${input.group}'`, [{ path: '/group', message: 'no such stage' }]);
        assertCan(access, 'stage.promote', { stage: group.name });
        const moved = await movePointer(tx, access, {
          group,
          policy: target,
          to: { pk: stored.id, revisionId: stored.revisionId },
          kind: 'set',
          reason: input.reason ?? 'composed',
          overrideReason: input.overrideReason,
          freezeOverrideReason: input.freezeOverrideReason,
          gateOverrideReason: input.gateOverrideReason,
          expectedRevisionId: input.expectedRevisionId,
          requestId: input.requestId,
          origin: { compose: true },
        });
        if (moved.request) {
          // Issue 28: the revision is saved, the stage did not move: say so (202) and name the request.
          result.saved = { revisionId: stored.revisionId, created: stored.created, status: 202 };
          result.request = moved.request;
          return result;
        }
      }
      result.saved = { revisionId: stored.revisionId, created: stored.created, status: stored.created ? 201 : 200 };
      return result;
    },
    { timeout: 30_000 },
  );
}
