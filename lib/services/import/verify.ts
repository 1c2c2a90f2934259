/**
 * Issue 42: `npm run import -- --verify (--server … | --dir …)`: does the console hold what the source holds?
 * Object by object, reading both and writing nothing (the Cinc backup tool's check of a server against a backup,
 * for the console):
 *
 * - content (cookbook artifacts, policy revisions, policy groups' pointers, data bags and items, nodes): the same
 *   set on both sides and each object equal (nodes and items by their JSON with numbers as written, key order
 *   aside; artifacts by their files; revisions by their documents);
 * - identities (clients, users, the organization's members): every one the source has is in the console with
 *   the same keys (by name and public key), validator flag, e-mail and names; the console's own (its
 *   administrators, its validator) are listed as "only in the console" without failing the check.
 */
import { assertCan, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { differingPaths, fingerprint, jsonEqual, parseLossless } from '@/lib/domain';
import { isAppError } from '@/lib/errors';
import type { ImportKind } from '@/lib/types/import';
import { normalisePublicKey } from '@/lib/auth/key-pairs';
import { nodeDocument, normaliseNode } from '@/lib/services/nodes';
import { HOME_ORG_ID } from '@/lib/services/organizations';
import { withoutServerFields } from '@/lib/services/funnel';
import { SourceError, type ImportSource } from './source';

export interface VerifyLine {
  kind: ImportKind;
  name: string;
  detail: string;
}

export interface VerifyResult {
  source: string;
  /** Objects compared. */
  compared: number;
  /** Every difference (the check fails when there is one). */
  differences: VerifyLine[];
  /** Identities the console has and the source does not (its own administrators, its validator): listed, not failed. */
  consoleOnly: VerifyLine[];
}

const keyText = (k: string) => normalisePublicKey(k) ?? k.trim();
const sortedNames = (xs: Iterable<string>) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

export async function verifyImport(access: Access, source: ImportSource, opts: { concurrency?: number } = {}): Promise<VerifyResult> {
  assertCan(access, 'admin.import');
  const n = Math.max(1, opts.concurrency ?? 4);
  const out: VerifyResult = { source: source.label, compared: 0, differences: [], consoleOnly: [] };
  const differ = (kind: ImportKind, name: string, detail: string) => out.differences.push({ kind, name, detail });
  /** Compares one object; a source that cannot give it is a difference too (the check cannot vouch for it). */
  const check = async (kind: ImportKind, name: string, fn: () => Promise<void>) => {
    out.compared++;
    try {
      await fn();
    } catch (e) {
      differ(kind, name, `could not be compared: ${e instanceof SourceError || isAppError(e) ? e.message : (e as Error).message}`);
    }
  };
  /** Sets of names: what only one side has. */
  const sets = (kind: ImportKind, what: string, src: Iterable<string>, mine: Iterable<string>, consoleOnlyFails = true) => {
    const a = new Set(src);
    const b = new Set(mine);
    for (const x of sortedNames(a)) if (!b.has(x)) differ(kind, x, `in the source, not in the console (${what})`);
    for (const x of sortedNames(b)) if (!a.has(x)) (consoleOnlyFails ? out.differences : out.consoleOnly).push({ kind, name: x, detail: `in the console, not in the source (${what})` });
    return [...a].filter((x) => b.has(x)).sort();
  };

  // Cookbook artifacts.
  const artifacts = await source.cookbookArtifacts();
  const myArtifacts = await db().cookbookArtifact.findMany({ select: { name: true, identifier: true } });
  const bothArtifacts = sets('cookbook-artifact', 'cookbook artifacts', [...artifacts].flatMap(([name, ids]) => ids.map((id) => `${name}@${id}`)), myArtifacts.map((a) => `${a.name}@${a.identifier}`));
  const files = (m: Record<string, unknown>) => (Array.isArray(m.all_files) ? m.all_files : []).map((f: { path?: string; checksum?: string }) => `${f.path} ${f.checksum}`).sort();
  await pool(bothArtifacts, n, (key) =>
    check('cookbook-artifact', key, async () => {
      const [name, id] = key.split('@');
      const { manifest } = await source.cookbookArtifact(name, id);
      const row = await db().cookbookArtifact.findUniqueOrThrow({ where: { name_identifier: { name, identifier: id } }, select: { manifest: true } });
      const mine = JSON.parse(row.manifest) as Record<string, unknown>;
      if (source.rebuildsManifests ? JSON.stringify(files(mine)) !== JSON.stringify(files(manifest)) : !jsonEqual(mine, manifest)) {
        differ('cookbook-artifact', key, source.rebuildsManifests ? 'its files differ (path and checksum)' : `its manifest differs at ${differingPaths(mine, manifest).join(', ')}`);
      }
    }),
  );

  // Policy revisions.
  const policies = await source.policies();
  const myRevisions = await db().policyRevision.findMany({ select: { revisionId: true, policy: { select: { name: true } } } });
  const bothRevisions = sets('policy-revision', 'policy revisions', [...policies].flatMap(([p, revs]) => revs.map((r) => `${p}@${r}`)), myRevisions.map((r) => `${r.policy.name}@${r.revisionId}`));
  await pool(bothRevisions, n, (key) =>
    check('policy-revision', key, async () => {
      const [name, rev] = key.split('@');
      const text = withoutServerFields(await source.policyRevision(name, rev));
      const row = await db().policyRevision.findFirstOrThrow({ where: { policy: { name }, revisionId: rev }, select: { document: true } });
      const [a, b] = [parseLossless(row.document), parseLossless(text)];
      if (fingerprint(a) !== fingerprint(b)) differ('policy-revision', key, `its document differs at ${differingPaths(a, b).join(', ')}`);
    }),
  );

  // Policy groups: which revision each stage runs of each policy.
  const groups = await source.policyGroups();
  const myPointers = await db().groupPolicy.findMany({ select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { revisionId: true } } } });
  const mine = new Map<string, string>(myPointers.map((p) => [`${p.group.name}/${p.policy.name}`, p.revision.revisionId]));
  const theirs = new Map<string, string>([...groups].flatMap(([g, ps]) => [...ps].map(([p, r]) => [`${g}/${p}`, r] as [string, string])));
  for (const key of sets('policy-group', 'policy group pointers', theirs.keys(), mine.keys())) {
    out.compared++;
    if (mine.get(key) !== theirs.get(key)) differ('policy-group', key, `the console runs ${mine.get(key)}, the source ${theirs.get(key)}`);
  }

  // Data bags and items.
  const bags = await source.dataBags();
  const myBags = await db().dataBag.findMany({ select: { name: true, items: { select: { itemId: true } } } });
  for (const bag of sets('data-bag', 'data bags', bags, myBags.map((b) => b.name))) {
    out.compared++;
    const items = await source.dataBagItems(bag);
    const myItems = myBags.find((b) => b.name === bag)!.items.map((i) => i.itemId);
    await pool(sets('data-bag-item', `items of ${bag}`, items.map((i) => `${bag}/${i}`), myItems.map((i) => `${bag}/${i}`)), n, (key) =>
      check('data-bag-item', key, async () => {
        const id = key.slice(bag.length + 1);
        const row = await db().dataBagItem.findFirstOrThrow({ where: { bag: { name: bag }, itemId: id }, select: { document: true } });
        const [a, b] = [parseLossless(row.document), parseLossless(await source.dataBagItem(bag, id))];
        if (fingerprint(a) !== fingerprint(b)) differ('data-bag-item', key, `differs at ${differingPaths(a, b).join(', ')}`);
      }),
    );
  }

  // Nodes, as Chef node objects with their numbers as written.
  const nodes = await source.nodes();
  const myNodes = await db().node.findMany({ select: { name: true } });
  await pool(sets('node', 'nodes', nodes, myNodes.map((x) => x.name)), n, (name) =>
    check('node', name, async () => {
      const theirs = normaliseNode(await source.node(name), name);
      const row = await db().node.findUniqueOrThrow({ where: { name }, select: { name: true, groupId: true, policyId: true, chefDocument: true, reportedGroup: true, reportedPolicy: true, revisionApplied: true, platform: true, platformVersion: true, platformFamily: true, os: true, group: { select: { name: true } }, policy: { select: { name: true } } } });
      const mineNode = parseLossless(nodeDocument(row));
      if (fingerprint(mineNode) !== fingerprint(theirs)) differ('node', name, `differs at ${differingPaths(mineNode, theirs).join(', ')}`);
    }),
  );

  // Clients: the source's, with their validator flag and keys (the console's own are listed only).
  const clients = await source.clients();
  const myClients = await db().chefClient.findMany({ where: { orgId: HOME_ORG_ID }, select: { name: true } });
  await pool(sets('client', 'clients', clients, myClients.map((c) => c.name), false), n, (name) =>
    check('client', name, async () => {
      const c = await source.client(name);
      const row = await db().chefClient.findUniqueOrThrow({ where: { orgId_name: { orgId: HOME_ORG_ID, name } }, select: { validator: true, keys: { select: { name: true, publicKey: true } } } });
      const problems: string[] = [];
      if (row.validator !== c.validator) problems.push(`validator ${row.validator} in the console, ${c.validator} in the source`);
      problems.push(...keyProblems(row.keys, c.keys));
      if (problems.length) differ('client', name, problems.join('; '));
    }),
  );

  // Users: the source's, with e-mail, names and keys.
  const users = await source.users();
  const myUsers = await db().user.findMany({ where: { chefName: { not: null } }, select: { chefName: true } });
  await pool(sets('user', 'users', users, myUsers.map((u) => u.chefName!), false), n, (name) =>
    check('user', name, async () => {
      const u = await source.user(name);
      const row = await db().user.findUniqueOrThrow({ where: { chefName: name }, select: { email: true, name: true, firstName: true, lastName: true, chefKeys: { select: { name: true, publicKey: true } } } });
      const problems: string[] = [];
      if (u.email && u.email.toLowerCase() !== row.email) problems.push(`e-mail ${row.email} in the console, ${u.email} in the source`);
      if (u.displayName !== row.name) problems.push(`display name '${row.name}' in the console, '${u.displayName}' in the source`);
      if (u.firstName && u.firstName !== row.firstName) problems.push(`first name '${row.firstName ?? ''}' in the console, '${u.firstName}' in the source`);
      if (u.lastName && u.lastName !== row.lastName) problems.push(`last name '${row.lastName ?? ''}' in the console, '${u.lastName}' in the source`);
      problems.push(...keyProblems(row.chefKeys, u.keys));
      if (problems.length) differ('user', name, problems.join('; '));
    }),
  );
  const members = source.members ? await source.members() : null;
  if (members) {
    const myMembers = await db().orgMember.findMany({ where: { orgId: HOME_ORG_ID }, select: { user: { select: { chefName: true } } } });
    sets('user', 'members of the organization', members, myMembers.flatMap((m) => (m.user.chefName ? [m.user.chefName] : [])), false);
    out.compared += members.length;
  }
  out.differences.sort((a, b) => (a.kind + a.name < b.kind + b.name ? -1 : 1));
  return out;
}

function keyProblems(mine: { name: string; publicKey: string }[], theirs: { name: string; publicKey: string }[]): string[] {
  const m = new Map(mine.map((k) => [k.name, keyText(k.publicKey)]));
  const t = new Map(theirs.map((k) => [k.name, keyText(k.publicKey)]));
  const out: string[] = [];
  for (const k of sortedNames(t.keys())) if (!m.has(k)) out.push(`key '${k}' only in the source`);
  for (const k of sortedNames(m.keys())) if (!t.has(k)) out.push(`key '${k}' only in the console`);
  for (const k of sortedNames(t.keys())) if (m.has(k) && m.get(k) !== t.get(k)) out.push(`key '${k}' differs`);
  return out;
}
