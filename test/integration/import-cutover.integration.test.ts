/**
 * Issue 42, a staged cut-over from a knife-ec-backup tree, and issue 43's import finding:
 * - a re-import brings a pointer the source moved (through the guarded move, audited as import), keeps a move
 *   made in the console, and calls a conflict only a pointer both moved, naming what differs;
 * - a node that checked in to the console since its import is never overwritten (--prefer source included);
 * - node JSON keeps its numbers as sent (`1.0`, 31-digit integers), and so do wrapped data bag items;
 * - imported nodes' last check-in is their ohai_time; the board orders imported revisions by history and
 *   versions, not by import time;
 * - the dry run answers exactly what the run does (a protected stage: a request; a frozen one: refused), and
 *   nodes left on a policy their stage does not run are listed in both.
 * Both databases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Access, ClientActor } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { computeRevisionId, parseLossless } from '@/lib/domain';
import { loadBoard } from '@/lib/db/queries/board';
import { createClient } from '@/lib/services/clients';
import { getChefNodeDocument, updateChefNode } from '@/lib/services/nodes';
import { getDataBagItem } from '@/lib/services/data-bags';
import { DirectorySource, runImport } from '@/lib/services/import';
import { searchNodesPage } from '@/lib/services/search';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { putStage, ZPutStageInput, setGroupPolicy } from '@/lib/services/stages';
import { addFreezeWindow, setStageProtection } from '@/lib/services/guards';
import { parseInput } from '@/lib/services/funnel';
import type { ImportReport } from '@/lib/types/import';
import { accessFor } from '../helpers';

let admin: Access;
let tmp: string;

/** A valid lock of policy `web` pinning cookbook web at `version`, under chef-cli's id for it. */
function lock(version: string, policy = 'web'): { id: string; text: string } {
  const identifier = version.replace(/\D/g, '').padEnd(40, '7');
  const text = JSON.stringify({ revision_id: '0'.repeat(64), name: policy, run_list: ['recipe[web::default]'], cookbook_locks: { web: { version, identifier } } }, null, 2);
  const id = computeRevisionId(text);
  return { id, text: text.replace('0'.repeat(64), id) };
}

function put(root: string, rel: string, text: string) {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

const org = (root: string) => path.join(root, 'organizations/acme');
const group = (root: string, g: string, pointers: Record<string, string>) => put(org(root), `policy_groups/${g}.json`, JSON.stringify({ name: g, policies: Object.fromEntries(Object.entries(pointers).map(([p, r]) => [p, { revision_id: r }])) }));
const node = (name: string, g: string | null, extra = '') =>
  `{"name":"${name}","chef_type":"node","json_class":"Chef::Node","chef_environment":"_default",${g ? `"policy_group":"${g}","policy_name":"web",` : ''}"run_list":[],"normal":{"run_time_limit":1.0,"ratio":2.50,"big":1234567890123456789012345678901${extra}},"default":{},"override":{},"automatic":{"ohai_time":1764588000.123,"platform":"debian"}}`;

const [A, B, C] = [lock('1.0.0'), lock('1.1.0'), lock('1.2.0')];

beforeAll(async () => {
  await db().user.create({ data: { email: 'ops@example.com', name: 'Ops', isAdmin: true, passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
  admin = await accessFor('ops@example.com');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cutover-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const entries = (r: ImportReport) => ({
  imported: r.imported.map((e) => `${e.kind} ${e.name}`).sort(),
  skipped: r.skipped.map((e) => `${e.kind} ${e.name}`).sort(),
  conflicts: r.conflicts.map((e) => `${e.kind} ${e.name}`).sort(),
  attention: (r.attention ?? []).map((e) => `${e.kind} ${e.name}`).sort(),
});

describe('a staged cut-over', () => {
  const dir = () => path.join(tmp, 'ec');

  it('the first import: exact node JSON, last check-in from ohai_time, revisions ordered by versions not import time', async () => {
    // Stored newest first, so that import time would call the older revision newer.
    for (const r of [C, B, A]) put(org(dir()), `policies/web-${r.id}.json`, r.text);
    group(dir(), 'dev', { web: B.id });
    group(dir(), 'staging', { web: A.id });
    group(dir(), 'production', { web: A.id });
    put(org(dir()), 'nodes/n1.json', node('n1', 'staging'));
    put(org(dir()), 'nodes/n2.json', node('n2', 'production'));
    put(org(dir()), 'data_bags/app/wrapped.json', '{"name":"data_bag_item_app_wrapped","json_class":"Chef::DataBagItem","chef_type":"data_bag_item","data_bag":"app","raw_data":{"id":"wrapped","limit":1.0}}');
    const { report } = await runImport(admin, new DirectorySource(dir()), { concurrency: 1 });
    expect(report.conflicts).toEqual([]);
    expect(report.skipped).toEqual([]);
    const stored = (await db().node.findUniqueOrThrow({ where: { name: 'n1' }, select: { chefDocument: true } })).chefDocument!;
    expect(stored).toContain('"run_time_limit":1.0');
    const doc = await getChefNodeDocument(admin, 'n1');
    expect(doc).toBe(stored);
    expect(doc).toContain('"run_time_limit":1.0');
    expect(doc).toContain('"ratio":2.50');
    expect(doc).toContain('"big":1234567890123456789012345678901');
    expect(await getDataBagItem(admin, 'app', 'wrapped')).toBe('{"id":"wrapped","limit":1.0}');
    const n1 = await db().node.findUniqueOrThrow({ where: { name: 'n1' }, select: { lastCheckIn: true } });
    expect(n1.lastCheckIn?.toISOString()).toBe('2025-12-01T11:20:00.123Z');
    // dev runs B (web 1.1.0), staging A (1.0.0): staging is behind dev although A was stored last.
    const board = await loadBoard(admin);
    expect(board.policies.find((p) => p.name === 'web')!.cells.staging).toMatchObject({ differsFromPrevious: true, relation: 'behind' });
  });

  it('a re-import brings the pointer the source moved, keeps the one the console moved, and calls a conflict the one both moved', async () => {
    // The console moves production to B; the source moves staging to B and dev to C; the console moves dev to A.
    await setGroupPolicy(admin, { group: 'production', policy: 'web', text: B.text });
    await setGroupPolicy(admin, { group: 'dev', policy: 'web', text: A.text });
    group(dir(), 'staging', { web: B.id });
    group(dir(), 'dev', { web: C.id });
    const dry = await runImport(admin, new DirectorySource(dir()), { dryRun: true });
    const { report } = await runImport(admin, new DirectorySource(dir()));
    expect(entries(dry.report)).toEqual(entries(report));
    expect(report.imported).toEqual([{ kind: 'policy-group', name: 'staging/web', detail: `moved from ${A.id} to ${B.id} (the source moved it since the import)` }]);
    expect(report.conflicts).toEqual([{ kind: 'policy-group', name: 'dev/web', detail: expect.stringMatching(new RegExp(`the console's dev runs ${A.id}, the source's ${C.id} \\(changed both here and at the source since the import of .*; differs at /revision_id\\): left as it is`)) }]);
    const runs = async (g: string) => (await db().groupPolicy.findFirstOrThrow({ where: { group: { name: g }, policy: { name: 'web' } }, select: { revision: { select: { revisionId: true } } } })).revision.revisionId;
    expect([await runs('dev'), await runs('staging'), await runs('production')]).toEqual([A.id, B.id, B.id]);
    // Through the guarded move: its history line and audit event, audited as import.
    const moved = await db().auditEvent.findFirstOrThrow({ where: { action: 'import', target: 'staging/web' }, orderBy: { createdAt: 'desc' }, select: { after: true, via: true } });
    expect(JSON.parse(moved.after!)).toMatchObject({ change: 'pointer.set' });
    expect(moved.via).toMatch(/^import:imp_/);
    expect(await db().pointerHistory.count({ where: { groupName: 'staging', reason: 'import: the source moved it since the import' } })).toBe(1);
  });

  it('a node that checked in to the console since its import is never overwritten, not even with --prefer source', async () => {
    await createClient(admin, { name: 'n1' }, { apiVersion: 1 });
    const row = await db().chefClient.findFirstOrThrow({ where: { name: 'n1' }, select: { id: true } });
    const asClient: ClientActor = { kind: 'client', clientId: row.id, name: 'n1', validator: false, via: 'chef-key:n1/default', userId: null, email: 'client:n1', stage: 'staging', stageIsolation: false };
    await updateChefNode(asClient, 'n1', parseLossless(node('n1', 'staging', ',"converged":true')));
    put(org(dir()), 'nodes/n1.json', node('n1', 'staging', ',"edited":"at the source"'));
    put(org(dir()), 'nodes/n2.json', node('n2', 'production', ',"edited":"at the source"'));
    const { report } = await runImport(admin, new DirectorySource(dir()), { prefer: 'source' });
    expect(report.skipped).toEqual([{ kind: 'node', name: 'n1', detail: expect.stringMatching(/has checked in to the console since its import .*not overwritten \(not even with --prefer source\); the source's differs at \/normal\/converged, \/normal\/edited/) }]);
    // n2 never checked in here: the source's change is brought (as it would be without --prefer: only the source moved).
    expect(report.imported).toEqual(expect.arrayContaining([{ kind: 'node', name: 'n2', detail: expect.stringMatching(/^updated \(the source changed it since the import; differs at \/normal\/edited\)$/) }]));
    expect(await getChefNodeDocument(admin, 'n1')).toContain('"converged":true');
  });
});

describe('issue 43: the dry run answers what the run does', () => {
  it('a protected stage gets a request in both, a frozen one is refused in both, and nodes left on a policy their stage does not run are listed in both', async () => {
    const root = path.join(tmp, 'guarded');
    const P = lock('2.0.0', 'shop');
    for (const s of ['shop-prod', 'shop-qa']) await putStage(admin, parseInput(ZPutStageInput, { name: s }));
    await setStageProtection(admin, { stage: 'shop-prod', protected: true, approvalsRequired: 1, rules: [], approvers: ['user:ops@example.com'] });
    await addFreezeWindow(admin, { stage: 'shop-qa', startsAt: new Date(Date.now() - 60_000), endsAt: new Date(Date.now() + 3_600_000), reason: 'Quarter close' });
    put(org(root), `policies/shop-${P.id}.json`, P.text);
    for (const g of ['shop-dev', 'shop-qa', 'shop-prod']) group(root, g, { shop: P.id });
    const nodeIn = (name: string, g: string | null) => node(name, g).replace('"policy_name":"web"', '"policy_name":"shop"');
    put(org(root), 'nodes/p1.json', nodeIn('p1', 'shop-prod'));
    put(org(root), 'nodes/q1.json', nodeIn('q1', 'shop-qa'));
    put(org(root), 'nodes/d1.json', nodeIn('d1', 'shop-dev'));
    put(org(root), 'nodes/x1.json', nodeIn('x1', null));

    const dry = await runImport(admin, new DirectorySource(root), { dryRun: true });
    const real = await runImport(admin, new DirectorySource(root));
    expect(entries(dry.report)).toEqual(entries(real.report));
    const detail = (r: ImportReport, name: string) => [...r.imported, ...r.skipped].find((e) => e.name === name)?.detail;
    expect(detail(dry.report, 'shop-prod/shop')).toMatch(/shop-prod is protected: a promotion request would be opened/);
    expect(detail(real.report, 'shop-prod/shop')).toMatch(/shop-prod is protected: promotion request \S+ was opened/);
    expect(detail(dry.report, 'shop-qa/shop')).toMatch(/^would be refused by shop-qa's guard: shop-qa is frozen \(Quarter close/);
    expect(detail(real.report, 'shop-qa/shop')).toMatch(/^refused by shop-qa's guard: shop-qa is frozen \(Quarter close/);
    expect(detail(real.report, 'shop-dev/shop')).toBe(`points at ${P.id}`);
    expect(entries(real.report).attention).toEqual(['node p1', 'node q1', 'node x1']);
    expect(real.report.attention!.find((e) => e.name === 'q1')!.detail).toMatch(/is on policy shop in shop-qa, which shop-qa does not run in the console \(the guard refuses the move: shop-qa is frozen/);
    expect(real.report.attention!.find((e) => e.name === 'x1')!.detail).toMatch(/no policy_group and no policy_name/);
    expect(await db().promotionRequest.count({ where: { group: { name: 'shop-prod' }, status: 'pending' } })).toBe(1);
    // The node without a policy is on the Nodes page, with what it lacks.
    const page = await searchNodesPage(admin, 'name:x1');
    expect(page.rows).toEqual([expect.objectContaining({ name: 'x1', stage: null, policy: null, lacks: ['policy_group', 'policy_name'] })]);
  });
});
