/**
 * Issue 27: import an organization from a Chef server or a backup directory.
 *
 * Every object goes through the same service the Chef route for it uses
 * (uploadRevision, putStage, setGroupPolicy, the sandbox → putArtifact
 * sequence, createDataBag / createDataBagItem / updateDataBagItem,
 * createClient / createKey, createChefNode / updateChefNode,
 * createChefUser): one transaction per object with its audit events, and the
 * importer's actor comes `via` "import:<run>", so each change is also
 * audited as `import` in that transaction (lib/services/internal/audit.ts).
 * No write rule is restated here: the importer only decides, per object,
 * whether the console already holds it (unchanged), lacks it (import), or
 * holds something else (a conflict: refused and listed, unless `prefer`).
 *
 * Re-runs: the decision compares content, never timestamps, so a second run
 * over the same source changes nothing; a run killed mid-way left only whole
 * objects behind (each committed atomically), and the next run imports the
 * rest. Immutable objects (policy revisions, cookbook artifacts) that differ
 * are conflicts even with prefer=source: they are never rewritten.
 *
 * Memory: one object per worker (a manifest, an item, a node; cookbook files
 * one at a time), `concurrency` workers.
 */
import { randomBytes } from 'node:crypto';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { computeRevisionId, jsonEqual, orderImportedStages } from '@/lib/domain';
import { isAppError } from '@/lib/errors';
import type { ImportEntry, ImportKind, ImportReport } from '@/lib/types/import';
import { createClient } from '../chef-clients';
import { normalisePublicKey } from '../chef-key-material';
import { createKey } from '../chef-keys';
import { createChefNode, getChefNode, normaliseNode, updateChefNode } from '../chef-nodes';
import { createChefUser } from '../chef-users';
import { associateUser } from '../org-members';
import { HOME_ORG_ID } from '../organizations';
import { commitSandbox, createSandbox, putArtifact, uploadSandboxFile } from '../cookbook-artifacts';
import { createDataBag, createDataBagItem, updateDataBagItem } from '../data-bags';
import { putStage, ZPutStageInput } from '../manage-stage';
import { setGroupPolicy } from '../set-group-policy';
import { uploadRevision } from '../upload-revision';
import { audit, IMPORT_VIA_PREFIX } from '../internal/audit';
import { withoutServerFields } from '../internal/store-revision';
import { transaction } from '../internal/retry';
import { parseInput } from '../internal/parse';
import { SourceError, type ImportSource, type SourceKey } from './source';

export type ImportPhase = 'cookbook artifacts' | 'policy revisions' | 'stages' | 'policy groups' | 'data bags' | 'clients' | 'nodes' | 'users' | 'done';

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
  onProgress?: (p: ImportProgress) => void;
  /** Stops between objects (what was committed stays; a re-run picks up the rest). */
  signal?: AbortSignal;
}

export interface ImportResult {
  runId: string;
  report: ImportReport;
}

type Outcome = { kind: 'unchanged' } | { kind: 'imported'; detail: string } | { kind: 'conflict'; detail: string } | { kind: 'skipped'; detail: string };

const CONFLICT_HINT = 'differs from the source: left as it is (run with --prefer source to take the source, --prefer console to accept the console)';

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

/** Starts the run record (with its audit event), so Admin → Import shows a run that was killed as still running. */
async function startRun(access: Access, label: string, opts: ImportOptions): Promise<string> {
  const id = `imp_${randomBytes(8).toString('hex')}`;
  await transaction(async (tx) => {
    await tx.importRun.create({ data: { id, source: label, dryRun: !!opts.dryRun, prefer: opts.prefer ?? null, startedBy: access.email } });
    await audit(tx, access, { action: 'import', targetType: 'organization', target: label, after: { run: id, dry_run: !!opts.dryRun, prefer: opts.prefer ?? null, phase: 'start' } });
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

/** Imports what `source` holds into the console as `access` (an administrator). */
export async function runImport(access: Access, source: ImportSource, opts: ImportOptions = {}): Promise<ImportResult> {
  assertCan(access, 'admin.import');
  const dry = !!opts.dryRun;
  const prefer = opts.prefer ?? null;
  const n = Math.max(1, opts.concurrency ?? 4);
  const runId = await startRun(access, source.label, opts);
  const actor: Access = { ...access, via: `${IMPORT_VIA_PREFIX}${runId}` };
  const report: ImportReport = { source: source.label, dryRun: dry, prefer, imported: [], unchanged: 0, skipped: [], conflicts: [], notImported: [], bytes: 0 };
  const progress: ImportProgress = { phase: 'cookbook artifacts', done: 0, total: 0, imported: 0, unchanged: 0, skipped: 0, conflicts: 0, bytes: 0 };
  const tick = () => {
    Object.assign(progress, { imported: report.imported.length, unchanged: report.unchanged, skipped: report.skipped.length, conflicts: report.conflicts.length, bytes: report.bytes });
    opts.onProgress?.({ ...progress });
  };
  const phase = (p: ImportPhase, total: number) => {
    Object.assign(progress, { phase: p, done: 0, total });
    tick();
  };

  /** Decides and (unless dry) writes one object; every failure becomes a report line, never an abort of the run. */
  const one = async (kind: ImportKind, name: string, fn: () => Promise<Outcome>) => {
    let o: Outcome;
    try {
      o = await fn();
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
  const wouldOr = (detail: string) => (dry ? `would be ${detail}` : detail);

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
        if (dry) return { kind: 'imported', detail: `would be created (${files.length} files)` };
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
      }),
    );

    // 2. Every revision of every policy, bytes kept, revision ids checked against their content.
    const policies = await list('policy-revision', 'policies', () => source.policies(), new Map<string, string[]>());
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
        if (dry) return { kind: 'imported', detail: `would be created${note}` };
        await uploadRevision(actor, { policyName: name, text, ownerTeam: opts.ownerTeam ?? undefined });
        return { kind: 'imported', detail: `created${note}` };
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
        if (!dry) await putStage(actor, parseInput(ZPutStageInput, { name: g }));
        return { kind: 'imported', detail: wouldOr('created') };
      });
    }
    const pointers = [...groups].flatMap(([g, ps]) => [...ps].map(([p, rev]) => [g, p, rev] as const));
    phase('policy groups', pointers.length);
    await pool(pointers, n, opts.signal, ([g, p, rev]) =>
      one('policy-group', `${g}/${p}`, async () => {
        const current = await db().groupPolicy.findFirst({ where: { group: { name: g }, policy: { name: p } }, select: { revision: { select: { revisionId: true } } } });
        if (current?.revision.revisionId === rev) return { kind: 'unchanged' };
        if (current && prefer !== 'source') return { kind: 'conflict', detail: `the console's ${g} runs ${current.revision.revisionId}, the source's ${rev}: ${prefer === 'console' ? "kept the console's (--prefer console)" : CONFLICT_HINT}` };
        const doc = await db().policyRevision.findFirst({ where: { policy: { name: p }, revisionId: rev }, select: { document: true } });
        if (!doc && !dry) return { kind: 'skipped', detail: `revision ${rev} of ${p} is not in the console (it could not be imported above)` };
        if (dry) return { kind: 'imported', detail: `would point ${g} at ${rev}` };
        const r = await setGroupPolicy(actor, { group: g, policy: p, text: doc!.document, ownerTeam: opts.ownerTeam ?? undefined, reason: 'import' });
        if (r.status === 202) return { kind: 'skipped', detail: `${g} is protected: a promotion request was opened instead (${r.request?.id ?? ''})` };
        return { kind: 'imported', detail: current ? `moved from ${current.revision.revisionId} to ${rev} (--prefer source)` : `points at ${rev}` };
      }),
    );

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
        if (!dry) await createDataBag(actor, { name: bag });
        return { kind: 'imported', detail: wouldOr('created') };
      });
    }
    phase('data bags', bagItems.length);
    await pool(bagItems, n, opts.signal, ([bag, id]) =>
      one('data-bag-item', `${bag}/${id}`, async () => {
        const text = await source.dataBagItem(bag, id);
        const stored = await db().dataBagItem.findFirst({ where: { bag: { name: bag }, itemId: id }, select: { document: true } });
        if (stored) {
          if (jsonEqual(JSON.parse(stored.document), JSON.parse(text))) return { kind: 'unchanged' };
          if (prefer !== 'source') return { kind: 'conflict', detail: prefer === 'console' ? "kept the console's (--prefer console)" : CONFLICT_HINT };
          if (!dry) await updateDataBagItem(actor, bag, id, text);
          return { kind: 'imported', detail: wouldOr('updated (--prefer source)') };
        }
        if (dry) return { kind: 'imported', detail: 'would be created' };
        if (!(await db().dataBag.findUnique({ where: { name: bag }, select: { id: true } }))) return { kind: 'skipped', detail: `data bag ${bag} is not in the console` };
        await createDataBagItem(actor, bag, text);
        return { kind: 'imported', detail: 'created' };
      }),
    );

    // 5. Clients with their public keys: a node keeps authenticating with the key it has.
    const clients = await list('client', 'clients', () => source.clients(), [] as string[]);
    phase('clients', clients.length);
    await pool(clients, n, opts.signal, (name) =>
      one('client', name, async () => {
        const c = await source.client(name);
        const mine = await db().chefClient.findUnique({ where: { orgId_name: { orgId: HOME_ORG_ID, name } }, select: { validator: true, keys: { select: { name: true, publicKey: true } } } });
        const byName = new Map((mine?.keys ?? []).map((k) => [k.name, k.publicKey]));
        const differing = c.keys.filter((k) => byName.has(k.name) && !sameKey(byName.get(k.name)!, k.publicKey));
        if (mine && (differing.length || mine.validator !== c.validator)) {
          const what = [...(mine.validator !== c.validator ? [`validator ${mine.validator} here, ${c.validator} in the source`] : []), ...differing.map((k) => `key '${k.name}' differs`)].join('; ');
          return { kind: 'conflict', detail: `${what}: ${prefer === 'console' ? "kept the console's (--prefer console)" : prefer === 'source' ? 'client keys are never replaced by an import; change them with knife client key' : CONFLICT_HINT}` };
        }
        const missing = c.keys.filter((k) => !byName.has(k.name));
        if (mine && !missing.length) return { kind: 'unchanged' };
        if (dry) return { kind: 'imported', detail: mine ? `would add keys ${missing.map((k) => k.name).join(', ')}` : `would be created${c.validator ? ' (validator)' : ''} with ${c.keys.length} key(s)` };
        let rest = missing;
        if (!mine) {
          // The client and its default key in one transaction; further keys (rare) each in their own.
          const first = missing.find((k) => k.name === 'default' && !k.expirationDate);
          await createClient(actor, { name, validator: c.validator, ...(first ? { public_key: first.publicKey } : {}) }, { apiVersion: 1 });
          rest = missing.filter((k) => k !== first);
        }
        for (const k of rest) await addKey(actor, { kind: 'client', name }, k);
        return { kind: 'imported', detail: mine ? `added keys ${missing.map((k) => k.name).join(', ')}` : `created${c.validator ? ' (validator)' : ''} with ${c.keys.length} key(s)` };
      }),
    );

    // 6. Nodes: their Chef documents, through the Chef node funnel.
    const nodes = await list('node', 'nodes', () => source.nodes(), [] as string[]);
    phase('nodes', nodes.length);
    await pool(nodes, n, opts.signal, (name) =>
      one('node', name, async () => {
        const body = normaliseNode(await source.node(name), name);
        const exists = await db().node.findUnique({ where: { name }, select: { id: true } });
        if (exists) {
          const mine = await getChefNode(actor, name);
          if (jsonEqual(mine, body)) return { kind: 'unchanged' };
          if (prefer !== 'source') return { kind: 'conflict', detail: prefer === 'console' ? "kept the console's (--prefer console)" : CONFLICT_HINT };
          if (!dry) await updateChefNode(actor, name, body);
          return { kind: 'imported', detail: wouldOr('updated (--prefer source)') };
        }
        if (!dry) await createChefNode(actor, body);
        return { kind: 'imported', detail: wouldOr('created') };
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
    const joined = (yes: boolean) => (yes ? `; ${dry ? 'would be added' : 'added'} to the organization` : '');
    phase('users', users.length);
    await pool(users, n, opts.signal, (name) =>
      one('user', name, async () => {
        const u = await source.user(name);
        const match = (await db().user.findUnique({ where: { chefName: name }, select: { chefName: true, email: true } })) ?? (u.email ? await db().user.findUnique({ where: { email: u.email.toLowerCase() }, select: { chefName: true, email: true } }) : null);
        if (!match) {
          if (!u.email) return { kind: 'skipped', detail: 'no console user has this name, and the source gives no e-mail to create one' };
          if (dry) return { kind: 'imported', detail: `would be created (${u.email}, no console password) with ${u.keys.length} key(s)${memberNames.has(name) ? ', a member of the organization' : ', not a member of the organization'}` };
          const first = u.keys.find((k) => k.name === 'default' && !k.expirationDate);
          await createChefUser(actor, { username: name, email: u.email, display_name: u.displayName, password: randomBytes(24).toString('base64url'), ...(first ? { public_key: first.publicKey } : {}) }, { apiVersion: 1 });
          for (const k of u.keys.filter((k) => k !== first)) await addKey(actor, { kind: 'user', name }, k);
          const member = await joinOrganization(name);
          return { kind: 'imported', detail: `created (${u.email}; no console password: an admin sets one to let them sign in) with ${u.keys.length} key(s)${member ? ', a member of the organization' : ', not a member of the organization (not in its members)'}` };
        }
        if (!match.chefName) return { kind: 'skipped', detail: `console user ${match.email} has no Chef name; give them one (Admin → Users) and run again` };
        if (match.chefName !== name) return { kind: 'conflict', detail: `matched console user ${match.email} by e-mail, whose Chef name is ${match.chefName}: keys not imported` };
        const member = await joinOrganization(name);
        const keys = await db().chefKey.findMany({ where: { user: { chefName: name } }, select: { name: true, publicKey: true } });
        const byName = new Map(keys.map((k) => [k.name, k.publicKey]));
        const differing = u.keys.filter((k) => byName.has(k.name) && !sameKey(byName.get(k.name)!, k.publicKey));
        const missing = u.keys.filter((k) => !byName.has(k.name));
        if (differing.length) return { kind: 'conflict', detail: `key(s) ${differing.map((k) => `'${k.name}'`).join(', ')} differ: ${prefer === 'console' ? "kept the console's (--prefer console)" : 'user keys are never replaced by an import'}${joined(member)}` };
        if (!missing.length) return member ? { kind: 'imported', detail: wouldOr('added to the organization') } : { kind: 'unchanged' };
        if (!dry) for (const k of missing) await addKey(actor, { kind: 'user', name }, k);
        return { kind: 'imported', detail: wouldOr(`keys ${missing.map((k) => k.name).join(', ')} added to ${match.email}`) + joined(member) };
      }),
    );
    // Members the source lists without a user file: console users of that Chef name join the organization.
    const listedOnly = [...memberNames].filter((m) => !users.includes(m)).sort();
    await pool(listedOnly, n, opts.signal, (name) =>
      one('user', name, async () => {
        if (!(await db().user.findUnique({ where: { chefName: name }, select: { id: true } }))) return { kind: 'skipped', detail: 'a member of the source organization, but no console user has this Chef name (and the source has no user file to create one)' };
        return (await joinOrganization(name)) ? { kind: 'imported', detail: wouldOr('added to the organization') } : { kind: 'unchanged' };
      }),
    );

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
