/**
 * Issue 27's console → console test: a second console to import from, run as
 * a child process by test/integration/import-console.integration.test.ts,
 * on its own SQLite file (migrated here; whichever database the console
 * under test runs on):
 *
 *   DATABASE_URL=file:/tmp/…/source.db node --import tsx test/console-source.ts NODES
 *
 * Seeds the demo organisation, cut to fit the test's time (three policies
 * with their revisions in several stages, the artifacts they pin with their
 * files, plain and encrypted data bags, clients, users, 8 of its nodes), plus
 * NODES more nodes, adds a Chef key for the user `admin`, starts the Chef
 * surface on a port the system chooses and prints one JSON line on stdout:
 * {"url", "org", "key"} (key: the private key PEM). Exits when stdin closes.
 */
import { db } from '../lib/db/client';
import { applyMigrations } from '../lib/db/migrate';
import { loadAccess } from '../lib/db/queries/access';
import { startChefServer } from '../lib/chef/http';
import { chefOrg } from '../lib/config';
import { createChefNode } from '../lib/services/nodes';
import { addUserKey } from '../lib/services/keys';
import { seedDemo, DEMO_POLICIES } from '../lib/seed/seed-demo';

const nodes = Number(process.argv[2] ?? 0);
await applyMigrations(process.env.DATABASE_URL!);
await seedDemo(db(), new Date('2026-11-20T12:00:00Z'));
// The demo is larger than the test's time budget: keep three of its policies (with every revision, their
// stages and the artifacts their locks pin) and 8 of its 200+ nodes, then add NODES of our own.
const policies = (await db().policy.findMany({ orderBy: { name: 'asc' }, select: { name: true } })).map((p) => p.name);
const kept = [policies[0], policies[Math.floor(policies.length / 2)], policies[policies.length - 1]];
await db().groupPolicy.deleteMany({ where: { policy: { name: { notIn: kept } } } });
await db().policy.deleteMany({ where: { name: { notIn: kept } } });
const pinned = new Set<string>();
for (const r of await db().policyRevision.findMany({ select: { document: true } })) {
  for (const [cb, lock] of Object.entries((JSON.parse(r.document) as { cookbook_locks: Record<string, { identifier: string }> }).cookbook_locks)) pinned.add(`${cb} ${lock.identifier}`);
}
for (const a of await db().cookbookArtifact.findMany({ select: { id: true, name: true, identifier: true } })) {
  if (!pinned.has(`${a.name} ${a.identifier}`)) await db().cookbookArtifact.delete({ where: { id: a.id } });
}
const keep = (await db().node.findMany({ orderBy: { name: 'asc' }, take: 8, select: { name: true } })).map((n) => n.name);
await db().node.deleteMany({ where: { name: { notIn: keep } } });
const admin = await db().user.findFirstOrThrow({ where: { chefName: 'admin' }, select: { id: true } });
const access = (await loadAccess(admin.id))!;
const policy = DEMO_POLICIES[0].name;
for (let i = 1; i <= nodes; i++) {
  await createChefNode(access, {
    name: `src-node-${String(i).padStart(4, '0')}`,
    chef_environment: '_default',
    policy_name: policy,
    policy_group: 'dev',
    normal: { rack: i % 7, tags: [`t${i % 3}`] },
    automatic: { fqdn: `src-node-${i}.example.com`, platform: 'ubuntu', ipaddress: `10.0.${i >> 8}.${i & 255}` },
  });
}
const key = await addUserKey({ kind: 'system', userId: null, email: 'test' }, 'admin', { name: 'import-source' });
const { server, url } = await startChefServer(0);
process.stdout.write(`${JSON.stringify({ url, org: chefOrg(), key: key.privateKey })}\n`);
process.stdin.resume();
process.stdin.on('close', () => {
  server.closeAllConnections();
  server.close();
  void db()
    .$disconnect()
    .finally(() => process.exit(0));
});
