/**
 * Issue 27: import an organization from a Chef server or a backup directory.
 *
 * Every object goes through the same service the Chef route for it uses
 * (uploadRevision, putStage, setGroupPolicy, the sandbox → putArtifact
 * sequence, createDataBag / createDataBagItem / updateDataBagItem,
 * createClient / createKey, createChefNode / updateChefNode,
 * createChefUser): one transaction per object with its audit events, and the
 * importer's actor comes `via` "import:<run>", so each change is also
 * audited as `import` in that transaction (lib/services/funnel/audit.ts).
 * No write rule is restated here.
 *
 * Issue 42, staged cut-overs: per object the importer remembers what it last brought (ImportedObject: the
 * source's version and the console's right after, lib/services/import/records.ts), so a re-import applies what
 * changed at the source and not in the console (a pointer moves through the guarded move, audited as
 * `import`), keeps what changed in the console only, and calls a conflict only what changed on both sides,
 * naming the fields that differ (lib/domain/import/sync.ts). A node or client that has checked in to the
 * console since its import is never overwritten, `--prefer source` included; an account or client the
 * console had before (not made by an import) never gets the source's keys or rights unless `--prefer source`,
 * and the report lists each key and right added then (issue 41, item 4).
 *
 * One path for the dry run and the run: each object's handler decides (reading the console, the record and,
 * for a pointer, the guard's own judgement, lib/services/funnel/move-preview.ts); the dry run reports the
 * decision, the run applies it. What a run would create earlier in the same run (a stage, a revision, a bag)
 * is tracked, so the dry run judges later objects as the run will find them.
 *
 * Re-runs: decisions compare content, never timestamps; a run killed mid-way left only whole objects behind,
 * and the next run imports the rest. Immutable objects (policy revisions, cookbook artifacts) that differ are
 * conflicts even with prefer=source: they are never rewritten.
 *
 * Memory: one object per worker (a manifest, an item, a node; cookbook files one at a time), `concurrency` workers.
 */
import { createHash, randomBytes } from 'node:crypto';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { computeRevisionId, differingPaths, fingerprint, jsonEqual, orderImportedStages, parseLossless, syncState, type PolicyLock, type RightsMode, type SyncState } from '@/lib/domain';
import { isAppError } from '@/lib/errors';
import type { ImportEntry, ImportKind, ImportReport } from '@/lib/types/import';
import { createClient } from '@/lib/services/clients';
import { normalisePublicKey } from '@/lib/auth/key-pairs';
import { createKey } from '@/lib/services/keys';
import { createChefNode, nodeJson, normaliseNode, updateChefNode, type ChefNode } from '@/lib/services/nodes';
import { createChefUser } from '@/lib/services/users';
import { associateUser, HOME_ORG_ID } from '@/lib/services/organizations';
import { commitSandbox, createSandbox, putArtifact, uploadSandboxFile } from '@/lib/services/cookbooks';
import { createDataBag, createDataBagItem, updateDataBagItem } from '@/lib/services/data-bags';
import { putStage, ZPutStageInput, setGroupPolicy } from '@/lib/services/stages';
import { uploadRevision } from '@/lib/services/policies';
import { audit, IMPORT_VIA_PREFIX, guardPreview, withoutServerFields, transaction, parseInput } from '@/lib/services/funnel';
import type { Outcome, Plan } from './plan';
import { loadRecord, saveRecord, type ImportRecord } from './records';
import { importRights } from './rights';
import { SourceError, type ImportSource, type SourceKey } from './source';

export type ImportPhase = 'cookbook artifacts' | 'policy revisions' | 'stages' | 'policy groups' | 'data bags' | 'clients' | 'nodes' | 'users' | 'rights' | 'done';

export interface ImportProgress {
  phase: ImportPhase;
  done: number;
  total: number;
  imported: number;
  unchanged: number;
  skipped: number;
  conflicts: number;
  bytes: number;
}

export interface ImportOptions {
  dryRun?: boolean;
  prefer?: 'source' | 'console' | null;
  /** Objects worked on at once (requests in flight against a live source); default 4. */
  concurrency?: number;
  /** Owner team for policies the console does not have yet (see chooseOwnerTeam). */
  ownerTeam?: string | null;
  /** Issue 42: what imported people may do (lib/domain/import/rights.ts); default 'chef'. */
  rights?: RightsMode;
  onProgress?: (p: ImportProgress) => void;
  /** Stops between objects (what was committed stays; a re-run picks up the rest). */
  signal?: AbortSignal;
}

export interface ImportResult {
  runId: string;
  report: ImportReport;
}


const CONFLICT_HINT = 'run with --prefer source to take the source, --prefer console to keep the console';

function message(e: unknown): string {
  if (e instanceof SourceError) return e.message;
  if (isAppError(e)) return `${e.message}${e.errors?.[0]?.path ? ` (${e.errors[0].path})` : ''}`;
  return (e as Error)?.message ?? String(e);
}

/** Runs `fn` over `items` with at most `n` at once; stops taking new items once `signal` aborts. */
async function pool<T>(items: readonly T[], n: number, signal: AbortSignal | undefined, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const item = items[next++];
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
  signal?.throwIfAborted();
}

function sameKey(a: string, b: string): boolean {
  return (normalisePublicKey(a) ?? a.trim()) === (normalisePublicKey(b) ?? b.trim());
}

/** A key as the report lists it: its name and the SHA-256 of its public key (first 16 hex digits). */
function keyLabel(k: SourceKey): string {
  return `'${k.name}' (SHA-256 ${createHash('sha256').update(normalisePublicKey(k.publicKey) ?? k.publicKey.trim()).digest('hex').slice(0, 16)})`;
}

/** "the fields that differ": JSON pointers of `console` against `source`. */
function fieldsThatDiffer(consoleValue: unknown, sourceValue: unknown): string {
  const paths = differingPaths(consoleValue, sourceValue);
  return paths.length ? `differs at ${paths.join(', ')}` : 'differs';
}

/** The words for a state the console and the source disagree in (both moved, or no record of an import). */
function disagreement(state: SyncState, rec: ImportRecord | null): string {
  if (state === 'both-changed') return `changed both here and at the source since the import of ${rec!.importedAt.toISOString()}`;
  return 'the console had its own before any import';
}

/** Starts the run record (with its audit event), so Admin → Import shows a run that was killed as still running. */
async function startRun(access: Access, label: string, opts: ImportOptions): Promise<string> {
  const id = `imp_${randomBytes(8).toString('hex')}`;
  await transaction(async (tx) => {
    await tx.importRun.create({ data: { id, source: label, dryRun: !!opts.dryRun, prefer: opts.prefer ?? null, startedBy: access.email } });
    await audit(tx, access, { action: 'import', targetType: 'organization', target: label, after: { run: id, dry_run: !!opts.dryRun, prefer: opts.prefer ?? null, rights: opts.rights ?? 'chef', phase: 'start' } });
  });
  return id;
}

async function finishRun(access: Access, id: string, report: ImportReport, status: 'finished' | 'interrupted' | 'failed') {
  await transaction(async (tx) => {
    await tx.importRun.update({
      where: { id },
      data: { status, finishedAt: new Date(), imported: report.imported.length, unchanged: report.unchanged, skipped: report.skipped.length, conflicts: report.conflicts.length, report: JSON.stringify(report) },
    });
    await audit(tx, access, {
      action: 'import',
      targetType: 'organization',
      target: report.source,
      after: { run: id, phase: status, imported: report.imported.length, unchanged: report.unchanged, skipped: report.skipped.length, conflicts: report.conflicts.length },
    });
  });
}

/** What the run creates before later objects need it (so a dry run judges those as the run will). */
export interface Planned {
  stages: Set<string>;
  policies: Set<string>;
  /** "policy@revision" */
  revisions: Set<string>;
  /** "name identifier" */
  artifacts: Set<string>;
  bags: Set<string>;
  /** Chef user names the run creates (or created before: made by an import). */
  importUsers: Set<string>;
  /** Their e-mails, as the source gives them (what the report names people by, before they exist). */
  emails: Map<string, string>;
  /** Stage/policy → the revision the stage will run after the pointer phase (null: none), and why not when refused. */
  pointers: Map<string, { revisionId: string | null; why?: string }>;
}

/** Imports what `source` holds into the console as `access` (an administrator). */
export async function runImport(access: Access, source: ImportSource, opts: ImportOptions = {}): Promise<ImportResult> {
  assertCan(access, 'admin.import');
  const dry = !!opts.dryRun;
  const prefer = opts.prefer ?? null;
  const n = Math.max(1, opts.concurrency ?? 4);
  const runId = await startRun(access, source.label, opts);
  const actor: Access = { ...access, via: `${IMPORT_VIA_PREFIX}${runId}` };
  const report: ImportReport = { source: source.label, dryRun: dry, prefer, imported: [], unchanged: 0, skipped: [], conflicts: [], notImported: [], bytes: 0, attention: [] };
  const progress: ImportProgress = { phase: 'cookbook artifacts', done: 0, total: 0, imported: 0, unchanged: 0, skipped: 0, conflicts: 0, bytes: 0 };
  const planned: Planned = { stages: new Set(), policies: new Set(), revisions: new Set(), artifacts: new Set(), bags: new Set(), importUsers: new Set(), emails: new Map(), pointers: new Map() };
  const tick = () => {
    Object.assign(progress, { imported: report.imported.length, unchanged: report.unchanged, skipped: report.skipped.length, conflicts: report.conflicts.length, bytes: report.bytes });
    opts.onProgress?.({ ...progress });
  };
  const phase = (p: ImportPhase, total: number) => {
    Object.assign(progress, { phase: p, done: 0, total });
    tick();
  };
  const record = (kind: Parameters<typeof saveRecord>[0], name: string, r: { sourceHash: string; consoleHash: string; created?: boolean }) => saveRecord(kind, name, { ...r, runId });

  /** Decides one object and (unless dry) applies the decision; every failure becomes a report line, never an abort of the run. */
  const one = async (kind: ImportKind, name: string, decide: () => Promise<Plan>) => {
    let o: Outcome;
    try {
      const plan = await decide();
      if (plan.kind === 'imported') o = dry ? { kind: plan.listAs ?? 'imported', detail: plan.would } : await plan.apply();
      else {
        if (!dry && plan.record) await plan.record();
        o = plan.kind === 'unchanged' ? plan : { kind: plan.kind, detail: plan.detail };
      }
    } catch (e) {
      if (opts.signal?.aborted && (e as Error)?.name === 'AbortError') throw e;
      o = { kind: 'skipped', detail: message(e) };
    }
    const entry: ImportEntry = { kind, name, ...(o.kind !== 'unchanged' ? { detail: o.detail } : {}) };
    if (o.kind === 'unchanged') report.unchanged++;
    else if (o.kind === 'imported') report.imported.push(entry);
    else if (o.kind === 'conflict') report.conflicts.push(entry);
    else report.skipped.push(entry);
    progress.done++;
    tick();
  };
  /** A list the source could not give: one skipped line naming where, and the phase goes on with nothing. */
  const list = async <T>(kind: ImportKind, what: string, fn: () => Promise<T>, empty: T): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      report.skipped.push({ kind, name: `(all ${what})`, detail: message(e) });
      return empty;
    }
  };
  /** Unchanged, remembering the equal state when the record lacks it (a run killed between a write and its record). */
  const same = (rec: ImportRecord | null, kind: Parameters<typeof saveRecord>[0], name: string, hash: string): Plan =>
    rec && rec.sourceHash === hash && rec.consoleHash === hash ? { kind: 'unchanged' } : { kind: 'unchanged', record: () => record(kind, name, { sourceHash: hash, consoleHash: hash }) };

  let status: 'finished' | 'interrupted' | 'failed' = 'finished';
  try {
    // 1. Cookbook artifacts first: the policies pin them, and a stage that requires artifacts checks them.
    const artifacts = await list('cookbook-artifact', 'cookbook artifacts', () => source.cookbookArtifacts(), new Map<string, string[]>());
    const artifactList = [...artifacts].flatMap(([name, ids]) => ids.map((id) => [name, id] as const));
    phase('cookbook artifacts', artifactList.length);
    await pool(artifactList, n, opts.signal, ([name, id]) =>
      one('cookbook-artifact', `${name}@${id}`, async () => {
        const existing = await db().cookbookArtifact.findUnique({ where: { name_identifier: { name, identifier: id } }, select: { manifest: true } });
        const { manifest, files } = await source.cookbookArtifact(name, id);
        if (existing) {
          const mine = JSON.parse(existing.manifest) as Record<string, unknown>;
          const sums = (m: Record<string, unknown>) => JSON.stringify((Array.isArray(m.all_files) ? m.all_files : []).map((f: { path?: string; checksum?: string }) => `${f.path} ${f.checksum}`).sort());
          // A directory source rebuilds the manifest from the files: the files are what must match there.
          if (jsonEqual(mine, manifest) || (source.rebuildsManifests === true && sums(mine) === sums(manifest))) return { kind: 'unchanged' };
          return { kind: 'conflict', detail: 'another manifest at this identifier in the console (artifacts are immutable)' };
        }
        planned.artifacts.add(`${name} ${id}`);
        return {
          kind: 'imported',
          would: `would be created (${files.length} files)`,
          apply: async () => {
            const sandbox = files.length ? await createSandbox(actor, { checksums: Object.fromEntries(files.map((f) => [f.checksum, null])) }) : null;
            for (const f of files) {
              if (!sandbox?.checksums[f.checksum]?.needs_upload) continue;
              const bytes = await source.cookbookFile(name, id, f);
              report.bytes += bytes.length;
              await uploadSandboxFile(actor, sandbox.id, f.checksum, bytes, null);
            }
            if (sandbox) await commitSandbox(actor, sandbox.id, { is_completed: true });
            await putArtifact(actor, name, id, manifest);
            return { kind: 'imported', detail: `created (${files.length} files, checksums verified)` };
          },
        };
      }),
    );

    // 2. Every revision of every policy, bytes kept, revision ids checked against their content.
    const policies = await list('policy-revision', 'policies', () => source.policies(), new Map<string, string[]>());
    const havePolicies = new Set((await db().policy.findMany({ select: { name: true } })).map((p) => p.name));
    const revisions = [...policies].flatMap(([name, revs]) => revs.map((r) => [name, r] as const));
    phase('policy revisions', revisions.length);
    await pool(revisions, n, opts.signal, ([name, rev]) =>
      one('policy-revision', `${name}@${rev}`, async () => {
        const text = withoutServerFields(await source.policyRevision(name, rev));
        const stored = await db().policyRevision.findFirst({ where: { policy: { name }, revisionId: rev }, select: { document: true } });
        if (stored) return stored.document === text || jsonEqual(JSON.parse(stored.document), JSON.parse(text)) ? { kind: 'unchanged' } : { kind: 'conflict', detail: 'another document under this revision id in the console (revisions are immutable)' };
        let note = '';
        try {
          const computed = computeRevisionId(text);
          note = computed === rev ? ', revision id verified' : `, revision id does not match its content (chef-cli computes ${computed})`;
        } catch {
          note = '';
        }
        if (dry) {
          // What the run would store, for the pointers' dry judgement below.
          planned.revisions.add(`${name}@${rev}`);
          if (!havePolicies.has(name)) planned.policies.add(name);
        }
        return {
          kind: 'imported',
          would: `would be created${note}`,
          apply: async () => {
            await uploadRevision(actor, { policyName: name, text, ownerTeam: opts.ownerTeam ?? undefined, origin: 'import' });
            return { kind: 'imported', detail: `created${note}` };
          },
        };
      }),
    );

    // 3. Policy groups become stages (order from their names), then each group's pointers.
    const groups = await list('policy-group', 'policy groups', () => source.policyGroups(), new Map<string, Map<string, string>>());
    const have = new Set((await db().policyGroup.findMany({ select: { name: true } })).map((g) => g.name));
    const ordered = orderImportedStages([...groups.keys()]);
    phase('stages', ordered.length);
    // One at a time: each new stage is appended after the previous one.
    for (const g of ordered) {
      opts.signal?.throwIfAborted();
      await one('stage', g, async () => {
        if (have.has(g)) return { kind: 'unchanged' };
        planned.stages.add(g);
        return {
          kind: 'imported',
          would: 'would be created',
          apply: async () => {
            await putStage(actor, parseInput(ZPutStageInput, { name: g }));
            return { kind: 'imported', detail: 'created' };
          },
        };
      });
    }
    const pointers = [...groups].flatMap(([g, ps]) => [...ps].map(([p, rev]) => [g, p, rev] as const));
    phase('policy groups', pointers.length);
    await pool(pointers, n, opts.signal, ([g, p, rev]) => one('policy-group', `${g}/${p}`, () => decidePointer(g, p, rev)));

    async function decidePointer(g: string, p: string, rev: string): Promise<Plan> {
      const name = `${g}/${p}`;
      const current = await db().groupPolicy.findFirst({ where: { group: { name: g }, policy: { name: p } }, select: { revision: { select: { revisionId: true } } } });
      const now = current?.revision.revisionId ?? null;
      const rec = await loadRecord('pointer', name);
      const srcHash = fingerprint(rev);
      const keep = (why?: string) => planned.pointers.set(name, { revisionId: now, ...(why ? { why } : {}) });
      if (now === rev) {
        keep();
        return same(rec, 'pointer', name, srcHash);
      }
      let state: SyncState | 'new' = 'new';
      if (now) {
        state = syncState(srcHash, fingerprint(now), rec);
        // The console moved it since the import and the source did not: the console's move stands.
        if (state === 'console-changed') {
          keep(`the console moved ${g} to ${now} since the import`);
          return { kind: 'unchanged' };
        }
        if (state === 'both-changed' || state === 'unknown') {
          const what = `the console's ${g} runs ${now}, the source's ${rev} (${disagreement(state, rec)}; differs at /revision_id)`;
          if (prefer === 'console') {
            keep(`kept the console's ${now} (--prefer console)`);
            return { kind: 'conflict', detail: `${what}: kept the console's (--prefer console)`, record: () => record('pointer', name, { sourceHash: srcHash, consoleHash: fingerprint(now) }) };
          }
          if (prefer !== 'source') {
            keep(`a conflict: ${what}`);
            return { kind: 'conflict', detail: `${what}: left as it is (${CONFLICT_HINT})` };
          }
        }
      }
      const key = `${p}@${rev}`;
      const doc = await db().policyRevision.findFirst({ where: { policy: { name: p }, revisionId: rev }, select: { id: true, document: true } });
      // A dry run judges a revision it would store first by reading it again (one document held at a time).
      const text = doc?.document ?? (planned.revisions.has(key) ? withoutServerFields(await source.policyRevision(p, rev)) : null);
      if (!text) {
        keep(`revision ${rev} is not in the console`);
        return { kind: 'skipped', detail: `revision ${rev} of ${p} is not in the console (it could not be imported above)` };
      }
      // The guard's own judgement (what movePointer will enforce), for a stage and policy the console has.
      const why = state === 'source-changed' ? 'the source moved it since the import' : state === 'new' ? null : '--prefer source';
      const verdict = await judge(g, p, rev, doc?.id ?? null, text, now);
      if (verdict.kind === 'refused') {
        keep(`the guard refuses the move: ${verdict.detail}`);
        return { kind: 'skipped', detail: `${dry ? 'would be refused' : 'refused'} by ${g}'s guard: ${verdict.detail}` };
      }
      if (verdict.kind === 'request') {
        keep(`a promotion request ${dry ? 'would be' : 'was'} opened for ${rev}`);
        return {
          kind: 'imported',
          listAs: 'skipped',
          would: `${g} is protected: a promotion request would be opened (${verdict.detail}); the pointer moves when it is approved`,
          apply: () => movePointer(g, p, rev, text, now, why, srcHash),
        };
      }
      planned.pointers.set(name, { revisionId: rev });
      return {
        kind: 'imported',
        would: now ? `would move from ${now} to ${rev}${why ? ` (${why})` : ''}` : `would point ${g} at ${rev}`,
        apply: () => movePointer(g, p, rev, text, now, why, srcHash),
      };
    }

    /** The guard's answer for moving g/p to rev: move, a request, or refused (the importer gives no override reasons). */
    async function judge(g: string, p: string, rev: string, revisionPk: string | null, text: string, now: string | null): Promise<{ kind: 'move' } | { kind: 'request' | 'refused'; detail: string }> {
      const group = await db().policyGroup.findUnique({ where: { name: g }, select: { id: true, name: true } });
      if (!group) return { kind: 'move' }; // created by this run: no protection, freeze or gate yet
      const policy = await db().policy.findUnique({ where: { name: p }, select: { id: true, name: true } });
      const preview = await db().$transaction((tx) =>
        guardPreview(tx, actor, {
          group,
          policy: policy ?? { id: '', name: p },
          to: { pk: revisionPk ?? '', revisionId: rev },
          ...(revisionPk ? {} : { toDocument: JSON.parse(text) as PolicyLock }),
          kind: 'set',
        }),
      );
      // Artifacts this run brings first are not missing when the run moves the pointer.
      const missing = preview.missing_artifacts.filter((a) => !planned.artifacts.has(a));
      const needs = preview.needs.filter((x) => x !== 'override_reason' || missing.length);
      if (preview.outcome === 'blocked') return { kind: 'refused', detail: preview.summary };
      if (needs.length) {
        const what = needs.map((x) => (x === 'freeze_override_reason' ? `${g} is frozen (${preview.freeze?.reason ?? ''}, until ${preview.freeze?.ends_at ?? ''})` : x === 'gate_override_reason' ? `the promotion gate is not met (${preview.gate?.unmet.join('; ') ?? ''})` : `cookbooks missing on the server: ${missing.join(', ')}`));
        return { kind: 'refused', detail: `${what.join('; ')}: the importer gives no override; move it in the console when ready (it stays at ${now ?? 'nothing'})` };
      }
      if (preview.outcome === 'request') return { kind: 'request', detail: preview.summary };
      return { kind: 'move' };
    }

    /** The move itself: the Chef PUT's service (guarded, compare-and-swap on what was judged), audited as import. */
    async function movePointer(g: string, p: string, rev: string, text: string, now: string | null, why: string | null, srcHash: string): Promise<Outcome> {
      const r = await setGroupPolicy(actor, { group: g, policy: p, text, ownerTeam: opts.ownerTeam ?? undefined, reason: why ? `import: ${why}` : 'import', expectedRevisionId: now });
      if (r.status === 202) return { kind: 'skipped', detail: `${g} is protected: promotion request ${r.request?.id ?? ''} was opened (${r.request?.approvals_required ?? '?'} approval(s)); the pointer moves when it is approved` };
      await record('pointer', `${g}/${p}`, { sourceHash: srcHash, consoleHash: srcHash });
      return { kind: 'imported', detail: now ? `moved from ${now} to ${rev}${why ? ` (${why})` : ''}` : `points at ${rev}` };
    }

    // 4. Data bags and their items (encrypted items are opaque documents: stored as they are).
    const bags = await list('data-bag', 'data bags', () => source.dataBags(), [] as string[]);
    const bagItems: (readonly [string, string])[] = [];
    phase('data bags', bags.length);
    for (const bag of bags) {
      opts.signal?.throwIfAborted();
      await one('data-bag', bag, async () => {
        const items = await source.dataBagItems(bag);
        bagItems.push(...items.map((i) => [bag, i] as const));
        if (await db().dataBag.findUnique({ where: { name: bag }, select: { id: true } })) return { kind: 'unchanged' };
        planned.bags.add(bag);
        return {
          kind: 'imported',
          would: 'would be created',
          apply: async () => {
            await createDataBag(actor, { name: bag });
            return { kind: 'imported', detail: 'created' };
          },
        };
      });
    }
    phase('data bags', bagItems.length);
    await pool(bagItems, n, opts.signal, ([bag, id]) =>
      one('data-bag-item', `${bag}/${id}`, async () => {
        const name = `${bag}/${id}`;
        const text = await source.dataBagItem(bag, id);
        const src = parseLossless(text);
        const srcHash = fingerprint(src);
        const stored = await db().dataBagItem.findFirst({ where: { bag: { name: bag }, itemId: id }, select: { document: true } });
        const rec = await loadRecord('data-bag-item', name);
        if (!stored) {
          if (!planned.bags.has(bag) && !(await db().dataBag.findUnique({ where: { name: bag }, select: { id: true } }))) return { kind: 'skipped', detail: `data bag ${bag} is not in the console` };
          return {
            kind: 'imported',
            would: 'would be created',
            apply: async () => {
              await createDataBagItem(actor, bag, text);
              await record('data-bag-item', name, { sourceHash: srcHash, consoleHash: srcHash, created: true });
              return { kind: 'imported', detail: 'created' };
            },
          };
        }
        const mine = parseLossless(stored.document);
        const conHash = fingerprint(mine);
        const state = syncState(srcHash, conHash, rec);
        if (state === 'same') return same(rec, 'data-bag-item', name, srcHash);
        if (state === 'console-changed') return { kind: 'unchanged' };
        const update = (why: string): Plan => ({
          kind: 'imported',
          would: `would be updated (${why}; ${fieldsThatDiffer(mine, src)})`,
          apply: async () => {
            await updateDataBagItem(actor, bag, id, text);
            await record('data-bag-item', name, { sourceHash: srcHash, consoleHash: srcHash });
            return { kind: 'imported', detail: `updated (${why}; ${fieldsThatDiffer(mine, src)})` };
          },
        });
        if (state === 'source-changed') return update('the source changed it since the import');
        const what = `${disagreement(state, rec)}; ${fieldsThatDiffer(mine, src)}`;
        if (prefer === 'source') return update(`--prefer source; ${disagreement(state, rec)}`);
        if (prefer === 'console') return { kind: 'conflict', detail: `${what}: kept the console's (--prefer console)`, record: () => record('data-bag-item', name, { sourceHash: srcHash, consoleHash: conHash }) };
        return { kind: 'conflict', detail: `${what}: left as it is (${CONFLICT_HINT})` };
      }),
    );

    // 5. Clients with their public keys: a node keeps authenticating with the key it has.
    const clients = await list('client', 'clients', () => source.clients(), [] as string[]);
    phase('clients', clients.length);
    await pool(clients, n, opts.signal, (name) =>
      one('client', name, async () => {
        const c = await source.client(name);
        const srcHash = fingerprint({ validator: c.validator, keys: c.keys.map((k) => [k.name, normalisePublicKey(k.publicKey) ?? k.publicKey.trim()]).sort() });
        const mine = await db().chefClient.findUnique({ where: { orgId_name: { orgId: HOME_ORG_ID, name } }, select: { validator: true, lastSeenAt: true, keys: { select: { name: true, publicKey: true } } } });
        if (!mine) {
          return {
            kind: 'imported',
            would: `would be created${c.validator ? ' (validator)' : ''} with ${c.keys.length} key(s)`,
            apply: async () => {
              // The client and its default key in one transaction; further keys (rare) each in their own.
              const first = c.keys.find((k) => k.name === 'default' && !k.expirationDate);
              await createClient(actor, { name, validator: c.validator, ...(first ? { public_key: first.publicKey } : {}) }, { apiVersion: 1 });
              for (const k of c.keys.filter((k) => k !== first)) await addKey(actor, { kind: 'client', name }, k);
              await record('client', name, { sourceHash: srcHash, consoleHash: srcHash, created: true });
              return { kind: 'imported', detail: `created${c.validator ? ' (validator)' : ''} with ${c.keys.length} key(s)` };
            },
          };
        }
        const rec = await loadRecord('client', name);
        const byName = new Map(mine.keys.map((k) => [k.name, k.publicKey]));
        const differing = c.keys.filter((k) => byName.has(k.name) && !sameKey(byName.get(k.name)!, k.publicKey));
        if (differing.length || mine.validator !== c.validator) {
          const what = [...(mine.validator !== c.validator ? [`validator ${mine.validator} here, ${c.validator} in the source`] : []), ...differing.map((k) => `key '${k.name}' differs`)].join('; ');
          return { kind: 'conflict', detail: `${what}: ${prefer === 'console' ? "kept the console's (--prefer console)" : 'client keys are never replaced by an import; change them with knife client key'}` };
        }
        const missing = c.keys.filter((k) => !byName.has(k.name));
        if (!missing.length) return same(rec, 'client', name, srcHash);
        // Issue 42: a client that has signed a request to the console since its import is the console's now.
        const seen = mine.lastSeenAt && (!rec || mine.lastSeenAt > rec.importedAt) ? mine.lastSeenAt : null;
        if (seen) return { kind: 'skipped', detail: `has signed requests to the console since its import (last ${seen.toISOString()}): the source's keys ${missing.map(keyLabel).join(', ')} are not added (not even with --prefer source)` };
        // Issue 41 (item 4): a client the console had before (not made by an import) gets no key from the source unless asked.
        if (!rec?.created && prefer !== 'source') {
          return { kind: 'conflict', detail: `the console's client (not made by an import) lacks the source's keys ${missing.map(keyLabel).join(', ')}: not added (an import adds keys to an existing client only with --prefer source, and lists each)` };
        }
        const because = rec?.created ? 'the source added them since the import' : '--prefer source';
        return {
          kind: 'imported',
          would: `would add key(s) ${missing.map(keyLabel).join(', ')} (${because})`,
          apply: async () => {
            for (const k of missing) await addKey(actor, { kind: 'client', name }, k);
            await record('client', name, { sourceHash: srcHash, consoleHash: srcHash });
            return { kind: 'imported', detail: `added key(s) ${missing.map(keyLabel).join(', ')} (${because})` };
          },
        };
      }),
    );

    // 6. Nodes: their Chef documents (numbers as sent), through the Chef node funnel.
    const nodes = await list('node', 'nodes', () => source.nodes(), [] as string[]);
    const nodePlaces = new Map<string, { group: string | null; policy: string | null }>();
    phase('nodes', nodes.length);
    await pool(nodes, n, opts.signal, (name) =>
      one('node', name, async () => {
        const body = normaliseNode(await source.node(name), name);
        nodePlaces.set(name, { group: typeof body.policy_group === 'string' ? body.policy_group : null, policy: typeof body.policy_name === 'string' ? body.policy_name : null });
        const srcHash = fingerprint(body);
        const row = await db().node.findUnique({ where: { name }, select: { chefDocument: true, lastCheckIn: true, platform: true, platformVersion: true, platformFamily: true, os: true, revisionApplied: true, reportedGroup: true, reportedPolicy: true, group: { select: { name: true } }, policy: { select: { name: true } } } });
        if (!row) {
          return {
            kind: 'imported',
            would: 'would be created',
            apply: async () => {
              await createChefNode(actor, body);
              await record('node', name, { sourceHash: srcHash, consoleHash: srcHash, created: true });
              return { kind: 'imported', detail: 'created' };
            },
          };
        }
        const mine = (row.chefDocument ? parseLossless(row.chefDocument) : nodeJson({ name, ...row, groupId: null, policyId: null, chefDocument: null })) as ChefNode;
        const rec = await loadRecord('node', name);
        const state = syncState(srcHash, fingerprint(mine), rec);
        if (state === 'same') return same(rec, 'node', name, srcHash);
        if (state === 'console-changed') return { kind: 'unchanged' };
        // Issue 42: a node that has checked in to the console since its import (or, never imported, ever) is its own.
        const checkedIn = row.lastCheckIn && (!rec || row.lastCheckIn > rec.importedAt) ? row.lastCheckIn : null;
        if (checkedIn) return { kind: 'skipped', detail: `has checked in to the console since ${rec ? 'its import' : 'it was registered here'} (last ${checkedIn.toISOString()}): the console's copy is the node's own, not overwritten (not even with --prefer source); the source's ${fieldsThatDiffer(mine, body)}` };
        const update = (why: string): Plan => ({
          kind: 'imported',
          would: `would be updated (${why}; ${fieldsThatDiffer(mine, body)})`,
          apply: async () => {
            await updateChefNode(actor, name, body);
            await record('node', name, { sourceHash: srcHash, consoleHash: srcHash });
            return { kind: 'imported', detail: `updated (${why}; ${fieldsThatDiffer(mine, body)})` };
          },
        });
        if (state === 'source-changed') return update('the source changed it since the import');
        const what = `${disagreement(state, rec)}; ${fieldsThatDiffer(mine, body)}`;
        if (prefer === 'source') return update(`--prefer source; ${disagreement(state, rec)}`);
        if (prefer === 'console') return { kind: 'conflict', detail: `${what}: kept the console's (--prefer console)`, record: () => record('node', name, { sourceHash: srcHash, consoleHash: fingerprint(mine) }) };
        return { kind: 'conflict', detail: `${what}: left as it is (${CONFLICT_HINT})` };
      }),
    );

    // 7. Users' public keys, matched to console users by Chef name or e-mail (or created, without a console password).
    // Issue 23: the organization's members become members of the home organization (Chef's POST /users makes
    // non-members): the names the source lists as members (knife-ec-backup's organizations/ORG/members.json; a
    // server's organization users), else, when the source does not say, every user it lists.
    const users = await list('user', 'users', () => source.users(), [] as string[]);
    const listedMembers = source.members ? await list('user', 'organization members', () => source.members!(), [] as string[] | null) : null;
    const memberNames = new Set(listedMembers ?? users);
    /** Associates a listed member who is not one yet (true: associated, or would be on a dry run). */
    const joinOrganization = async (name: string): Promise<boolean> => {
      if (!memberNames.has(name)) return false;
      const u = await db().user.findUnique({ where: { chefName: name }, select: { orgMemberships: { where: { orgId: HOME_ORG_ID }, select: { userId: true } } } });
      if (!u || u.orgMemberships.length) return false;
      if (dry) return true;
      try {
        await associateUser(actor, { username: name });
      } catch (e) {
        if (isAppError(e) && e.code === 'conflict') return false; // another run associated them meanwhile
        throw e;
      }
      return true;
    };
    const wouldJoin = async (name: string) => {
      if (!memberNames.has(name)) return false;
      const u = await db().user.findUnique({ where: { chefName: name }, select: { orgMemberships: { where: { orgId: HOME_ORG_ID }, select: { userId: true } } } });
      return !!u && !u.orgMemberships.length;
    };
    const joined = (yes: boolean, d: boolean) => (yes ? `; ${d ? 'would be added' : 'added'} to the organization` : '');
    phase('users', users.length);
    await pool(users, n, opts.signal, (name) =>
      one('user', name, async () => {
        const u = await source.user(name);
        const keysHash = fingerprint(u.keys.map((k) => [k.name, normalisePublicKey(k.publicKey) ?? k.publicKey.trim()]).sort());
        const match =
          (await db().user.findUnique({ where: { chefName: name }, select: { id: true, chefName: true, email: true, origin: true } })) ??
          (u.email ? await db().user.findUnique({ where: { email: u.email.toLowerCase() }, select: { id: true, chefName: true, email: true, origin: true } }) : null);
        if (!match) {
          if (!u.email) return { kind: 'skipped', detail: 'no console user has this name, and the source gives no e-mail to create one' };
          planned.importUsers.add(name);
          planned.emails.set(name, u.email.toLowerCase());
          const member = memberNames.has(name);
          return {
            kind: 'imported',
            would: `would be created (${u.email}, no console password) with ${u.keys.length} key(s)${member ? ', a member of the organization' : ', not a member of the organization'}`,
            apply: async () => {
              const first = u.keys.find((k) => k.name === 'default' && !k.expirationDate);
              await createChefUser(
                actor,
                { username: name, email: u.email, display_name: u.displayName, ...(u.firstName ? { first_name: u.firstName } : {}), ...(u.lastName ? { last_name: u.lastName } : {}), password: randomBytes(24).toString('base64url'), ...(first ? { public_key: first.publicKey } : {}) },
                { apiVersion: 1, origin: 'import' },
              );
              for (const k of u.keys.filter((k) => k !== first)) await addKey(actor, { kind: 'user', name }, k);
              await record('user', name, { sourceHash: keysHash, consoleHash: keysHash, created: true });
              const joinedNow = await joinOrganization(name);
              return { kind: 'imported', detail: `created (${u.email}; no console password: an admin sets one to let them sign in) with ${u.keys.length} key(s)${joinedNow ? ', a member of the organization' : ', not a member of the organization (not in its members)'}` };
            },
          };
        }
        if (!match.chefName) return { kind: 'skipped', detail: `console user ${match.email} has no Chef name; give them one (Admin → Users) and run again` };
        if (match.chefName !== name) return { kind: 'conflict', detail: `matched console user ${match.email} by e-mail, whose Chef name is ${match.chefName}: keys not imported` };
        const rec = await loadRecord('user', name);
        const madeByImport = !!rec?.created || match.origin === 'import';
        if (madeByImport) planned.importUsers.add(name);
        const keys = await db().chefKey.findMany({ where: { userId: match.id }, select: { name: true, publicKey: true } });
        const byName = new Map(keys.map((k) => [k.name, k.publicKey]));
        const differing = u.keys.filter((k) => byName.has(k.name) && !sameKey(byName.get(k.name)!, k.publicKey));
        const missing = u.keys.filter((k) => !byName.has(k.name));
        const join = await wouldJoin(name);
        if (differing.length) {
          if (!dry) await joinOrganization(name);
          return { kind: 'conflict', detail: `key(s) ${differing.map((k) => `'${k.name}'`).join(', ')} differ: ${prefer === 'console' ? "kept the console's (--prefer console)" : 'user keys are never replaced by an import'}${joined(join, dry)}` };
        }
        if (!missing.length) {
          if (join) return { kind: 'imported', would: 'would be added to the organization', apply: async () => ((await joinOrganization(name)) ? { kind: 'imported', detail: 'added to the organization' } : { kind: 'unchanged' }) };
          return same(rec, 'user', name, keysHash);
        }
        // Issue 41 (item 4): an account the console had before (not made by an import) gets no key from the source unless asked.
        if (!madeByImport && prefer !== 'source') {
          if (!dry) await joinOrganization(name);
          return { kind: 'conflict', detail: `${match.email} is an existing console account (not made by an import): the source's key(s) ${missing.map(keyLabel).join(', ')} are not added (an import adds keys to an existing account only with --prefer source, and lists each)${joined(join, dry)}` };
        }
        const because = madeByImport ? 'the source added them since the import' : '--prefer source';
        return {
          kind: 'imported',
          would: `would add key(s) ${missing.map(keyLabel).join(', ')} to ${match.email} (${because})${joined(join, true)}`,
          apply: async () => {
            for (const k of missing) await addKey(actor, { kind: 'user', name }, k);
            await record('user', name, { sourceHash: keysHash, consoleHash: keysHash });
            const joinedNow = await joinOrganization(name);
            return { kind: 'imported', detail: `added key(s) ${missing.map(keyLabel).join(', ')} to ${match.email} (${because})${joined(joinedNow, false)}` };
          },
        };
      }),
    );
    // Members the source lists without a user file: console users of that Chef name join the organization.
    const listedOnly = [...memberNames].filter((m) => !users.includes(m)).sort();
    await pool(listedOnly, n, opts.signal, (name) =>
      one('user', name, async () => {
        if (!(await db().user.findUnique({ where: { chefName: name }, select: { id: true } }))) return { kind: 'skipped', detail: 'a member of the source organization, but no console user has this Chef name (and the source has no user file to create one)' };
        if (!(await wouldJoin(name))) return { kind: 'unchanged' };
        return { kind: 'imported', would: 'would be added to the organization', apply: async () => ((await joinOrganization(name)) ? { kind: 'imported', detail: 'added to the organization' } : { kind: 'unchanged' }) };
      }),
    );

    // 8. Issue 42: rights, from the source's groups and ACLs (lib/domain/import/rights.ts).
    phase('rights', 0);
    report.rights = await importRights({
      actor,
      source,
      mode: opts.rights ?? 'chef',
      prefer,
      dry,
      members: [...memberNames],
      stages: [...groups.keys()],
      bags,
      policies: [...policies.keys()],
      importUsers: planned.importUsers,
      emails: planned.emails,
      one,
      runId,
    });

    // 9. Issue 43: nodes left on a policy their stage does not run in the console (chef-client would fail there).
    for (const [node, at] of [...nodePlaces].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!at.group || !at.policy) {
        report.attention!.push({ kind: 'node', name: node, detail: `has ${!at.group && !at.policy ? 'no policy_group and no policy_name' : !at.group ? 'no policy_group' : 'no policy_name'} (a node whose first run stopped before it had a policy): listed on the Nodes page with what it lacks; it runs nothing until it is given both` });
        continue;
      }
      const key = `${at.group}/${at.policy}`;
      const after = planned.pointers.get(key);
      const runs = after ? after.revisionId : ((await db().groupPolicy.findFirst({ where: { group: { name: at.group }, policy: { name: at.policy } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null);
      if (runs) continue;
      const why = after?.why ?? (groups.get(at.group)?.has(at.policy) ? 'its pointer was not imported' : `the source's ${at.group} runs no ${at.policy} either`);
      report.attention!.push({ kind: 'node', name: node, detail: `is on policy ${at.policy} in ${at.group}, which ${at.group} does not run in the console${dry ? ' after this run' : ''} (${why}): chef-client on it fails against the console until ${at.group} runs ${at.policy}; move the node when it does` });
    }

    report.notImported = await list('cookbook-artifact', 'classic cookbooks, roles and environments', () => source.notImported(), []);
    phase('done', 0);
  } catch (e) {
    status = opts.signal?.aborted ? 'interrupted' : 'failed';
    if (status === 'failed') report.skipped.push({ kind: 'node', name: '(run)', detail: `the run stopped: ${message(e)}` });
    await finishRun(access, runId, report, status).catch(() => undefined);
    throw e;
  }
  await finishRun(access, runId, report, status);
  return { runId, report };
}

function addKey(actor: Access, owner: { kind: 'user' | 'client'; name: string }, k: SourceKey) {
  return createKey(actor, owner, { name: k.name, public_key: k.publicKey, expiration_date: k.expirationDate ?? 'infinity' });
}
