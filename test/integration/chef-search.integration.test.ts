/**
 * Chef search (issue 25) through the signed organization API, on a real
 * database (SQLite here, PostgreSQL under `npm run test:integration:pg`):
 * the indexes, full and partial search, Chef's refusals, stage visibility,
 * every write path keeping the index in step, and the database's answers
 * agreeing with the reference matcher (lib/domain/search/match.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { useChefHarness, type ChefHarness } from '@/test/chef-harness';
import { db, providerOf, sqliteDirect } from '@/lib/db/client';
import { accessFor } from '@/test/helpers';
import { reportNode } from '@/lib/services/nodes';
import { flattenForIndex, matchesRows, nodeSearchDocument, parseSearchQuery, type SearchQuery } from '@/lib/domain/search';
import { searchIndex } from '@/lib/db/queries/search';
import { indexNode, unindexNode } from '@/lib/db/queries/search-index';

const chef = useChefHarness();

function node(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    chef_environment: '_default',
    run_list: ['recipe[apache2]', 'role[web]'],
    normal: { app: { tier: 'web' } },
    automatic: { platform: 'ubuntu', platform_version: '22.04', kernel: { release: '5.15.0-91-generic' } },
    ...extra,
  };
}

const search = (index: string, q: string, as: Parameters<ChefHarness['request']>[2] = {}) => chef.request('GET', `search/${index}?q=${encodeURIComponent(q)}`, as);
const names = (res: { json: any }) => (res.json.rows as { name: string }[]).map((r) => r.name).sort();

describe('GET /search', () => {
  it('lists the built-in indexes with their URLs', async () => {
    const res = await chef.request('GET', 'search');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ node: `${chef.orgUrl}/search/node`, client: `${chef.orgUrl}/search/client` });
  });
});

describe('GET /search/node', () => {
  beforeAll(async () => {
    for (const [n, group, platform] of [
      ['s-web1', 'production', 'ubuntu'],
      ['s-web2', 'production', 'centos'],
      ['s-db1', 'staging', 'ubuntu'],
    ] as const) {
      const res = await chef.request('POST', 'nodes', { body: node(n, { policy_name: 'base', policy_group: group, automatic: { platform, kernel: { release: '6.1' } } }) });
      expect(res.status).toBe(201);
    }
  });

  it('finds by policy group and platform, with total, start and full node objects', async () => {
    const res = await search('node', 'policy_group:production AND platform:ubuntu AND name:s-*');
    expect(res.status).toBe(200);
    expect(res.json.total).toBe(1);
    expect(res.json.start).toBe(0);
    const get = await chef.request('GET', 'nodes/s-web1');
    expect(res.json.rows).toStrictEqual([get.json]);
  });

  it('supports wildcards, negation, ranges, phrases and grouping', async () => {
    expect(names(await search('node', 'name:s-web?'))).toStrictEqual(['s-web1', 's-web2']);
    expect(names(await search('node', 'name:s-* AND NOT platform:ubuntu'))).toStrictEqual(['s-web2']);
    expect(names(await search('node', 'name:s-* -policy_group:production'))).toStrictEqual(['s-db1']);
    expect(names(await search('node', 'name:s-* AND policy_group:(staging OR production) AND release:6.1'))).toStrictEqual(['s-db1', 's-web1', 's-web2']);
    expect(names(await search('node', 'name:[s-db1 TO s-web1]'))).toStrictEqual(['s-db1', 's-web1']);
    expect(names(await search('node', 'name:{s-db1 TO s-web1}'))).toStrictEqual([]);
    expect(names(await search('node', 'run_list:recipe\\[apache2\\] AND name:s-*'))).toStrictEqual(['s-db1', 's-web1', 's-web2']);
    expect(names(await search('node', 'role:web AND tier:web AND name:s-d*'))).toStrictEqual(['s-db1']);
  });

  it('pages with rows and start, and sorts', async () => {
    const all = await chef.request('GET', `search/node?q=${encodeURIComponent('name:s-*')}&sort=name%20desc`);
    expect(names(all)).toStrictEqual(['s-db1', 's-web1', 's-web2']);
    expect(all.json.rows.map((r: { name: string }) => r.name)).toStrictEqual(['s-web2', 's-web1', 's-db1']);
    const page = await chef.request('GET', `search/node?q=${encodeURIComponent('name:s-*')}&rows=1&start=1&sort=X_CHEF_id_CHEF_X%20asc`);
    expect(page.json).toMatchObject({ total: 3, start: 1 });
    expect(page.json.rows.map((r: { name: string }) => r.name)).toStrictEqual(['s-web1']);
  });

  it('partial search returns url and the requested paths from the merged attributes', async () => {
    const res = await chef.request('POST', `search/node?q=${encodeURIComponent('name:s-web1')}`, { body: { name: ['name'], tier: ['app', 'tier'], release: ['kernel', 'release'], missing: ['no', 'such'], empty: [] } });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({ total: 1, start: 0, rows: [{ url: `${chef.orgUrl}/nodes/s-web1`, data: { name: 's-web1', tier: 'web', release: '6.1', missing: null, empty: null } }] });
  });

  it("refuses a malformed query (400, naming the position), an unknown index (404) and bad partial bodies (400)", async () => {
    const bad = await search('node', 'name:(web');
    expect(bad.status).toBe(400);
    expect(bad.json.error[0]).toBe("invalid search query: 'name:(web': unbalanced '(' (no matching ')') at position 6");
    const unknown = await search('no_such_bag', 'id:x');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toStrictEqual({ error: ["I don't know how to search for no_such_bag data objects."] });
    for (const body of ['z[$blah', { a: 'blah' }, { a: 1 }, { a: true }, { a: { b: true } }, { a: [1, 2] }, { a: ['a', 2] }]) {
      const res = await chef.request('POST', 'search/node?q=name:x', { body });
      expect(res.status).toBe(400);
    }
    const rows = await chef.request('GET', 'search/node?q=*:*&rows=lots');
    expect(rows.status).toBe(400);
    expect(rows.text).toContain('rows');
  });

  it("intersects top-level terms by chunk, and a term also found nested in a node's attributes still finds every node", async () => {
    // `tt_zone` is a top-level value of one node and a nested path (tt → zone) of the other: the AND must find both.
    for (const [n, extra] of [
      ['s-top', { tt_zone: 'east' }],
      ['s-nested', { tt: { zone: 'east' } }],
    ] as const) {
      const res = await chef.request('POST', 'nodes', { body: node(n, { policy_name: 'tt', policy_group: 'production', normal: extra }) });
      expect(res.status).toBe(201);
    }
    // Every term only in top-values chunks: the chunk-level intersection.
    expect(names(await search('node', 'policy_name:tt AND policy_group:production'))).toStrictEqual(['s-nested', 's-top']);
    expect(names(await search('node', 'policy_name:tt AND policy_group:production AND name:s-to*'))).toStrictEqual(['s-top']);
    expect(names(await search('node', 'policy_name:tt AND policy_group:production AND NOT name:s-top'))).toStrictEqual(['s-nested']);
    // One term also in a nested chunk: the general plan, both nodes.
    expect(names(await search('node', 'policy_name:tt AND tt_zone:east AND policy_group:production'))).toStrictEqual(['s-nested', 's-top']);
    expect(names(await search('node', '(policy_name:tt AND zone:east) OR (policy_name:tt AND tt_zone:none)'))).toStrictEqual(['s-nested', 's-top']);
    for (const n of ['s-top', 's-nested']) expect((await chef.request('DELETE', `nodes/${n}`)).status).toBe(200);
  });

  it('follows every write: update, rename of attributes, delete', async () => {
    const body = node('s-moving', { policy_name: 'base', policy_group: 'staging', normal: { app: { tier: 'old' } } });
    expect((await chef.request('POST', 'nodes', { body })).status).toBe(201);
    expect(names(await search('node', 'tier:old'))).toStrictEqual(['s-moving']);
    expect((await chef.request('PUT', 'nodes/s-moving', { body: { ...body, normal: { app: { tier: 'new' } } } })).status).toBe(200);
    expect(names(await search('node', 'tier:old'))).toStrictEqual([]);
    expect(names(await search('node', 'tier:new'))).toStrictEqual(['s-moving']);
    expect((await chef.request('DELETE', 'nodes/s-moving')).status).toBe(200);
    expect(names(await search('node', 'tier:new'))).toStrictEqual([]);
  });

  it('shares equal attribute chunks between nodes and drops a chunk with its last node', async () => {
    const packages = { openssl: { version: '3.0.2' }, curl: { version: '7.81.0' } };
    const chunkRefs = async () => (await db().searchEntry.findMany({ where: { idx: 'node', path: 'packages_openssl_version', value: '3.0.2' }, select: { chunk: { select: { refs: true } } } })).map((e) => e.chunk.refs);
    for (const n of ['s-share1', 's-share2']) expect((await chef.request('POST', 'nodes', { body: node(n, { automatic: { platform: 'ubuntu', packages } }) })).status).toBe(201);
    // One chunk holds both nodes' packages rows.
    expect(await chunkRefs()).toStrictEqual([2]);
    expect(names(await search('node', 'packages_openssl_version:3.0.2'))).toStrictEqual(['s-share1', 's-share2']);
    // A node whose packages change leaves the shared chunk to the other one.
    expect((await chef.request('PUT', 'nodes/s-share1', { body: node('s-share1', { automatic: { platform: 'ubuntu', packages: { ...packages, curl: { version: '8.5.0' } } } }) })).status).toBe(200);
    expect(await chunkRefs()).toStrictEqual([1, 1]);
    expect(names(await search('node', 'packages_curl_version:7.81.0'))).toStrictEqual(['s-share2']);
    expect(names(await search('node', 'packages_curl_version:8.5.0'))).toStrictEqual(['s-share1']);
    for (const n of ['s-share1', 's-share2']) expect((await chef.request('DELETE', `nodes/${n}`)).status).toBe(200);
    // The last node gone, its chunks and their rows go too.
    expect(await chunkRefs()).toStrictEqual([]);
    expect(names(await search('node', 'packages_openssl_version:*'))).toStrictEqual([]);
  });

  it('indexes nodes reported through /api/v1 as well', async () => {
    const access = await accessFor('admin@example.com');
    await reportNode(access, { name: 's-api-node', policy_group: 'qa', policy_name: 'base', platform: 'rocky', platform_version: '9.3' });
    expect(names(await search('node', 'platform:rocky'))).toStrictEqual(['s-api-node']);
    await reportNode(access, { name: 's-api-node', policy_group: 'qa', policy_name: 'base', platform: 'alma', platform_version: '9.3' });
    expect(names(await search('node', 'platform:rocky'))).toStrictEqual([]);
    expect(names(await search('node', 'platform:alma AND policy_group:qa'))).toStrictEqual(['s-api-node']);
  });

  it('shows users only the nodes of stages they may view; clients see every node', async () => {
    const viewer = await db().user.findUniqueOrThrow({ where: { email: 'viewer@example.com' }, select: { id: true } });
    const production = await db().policyGroup.findUniqueOrThrow({ where: { name: 'production' }, select: { id: true } });
    await db().groupPermission.deleteMany({ where: { userId: viewer.id, groupId: production.id } });
    const asViewer = await search('node', 'name:s-*', { as: 'viewer' });
    expect(asViewer.status).toBe(200);
    // s-api-node is in qa, which the viewer may view; s-web1 and s-web2 are in production.
    expect(names(asViewer)).toStrictEqual(['s-api-node', 's-db1']);
    expect(asViewer.json.total).toBe(2);
    const asClient = await search('node', 'name:s-*', { as: 'client:search-reader' });
    expect(asClient.status).toBe(200);
    expect(names(asClient)).toStrictEqual(['s-api-node', 's-db1', 's-web1', 's-web2']);
    // A client reads only itself among clients (client.read), so that is all its client search returns.
    const clientsAsClient = await search('client', '*:*', { as: 'client:search-reader' });
    expect(clientsAsClient.status).toBe(200);
    expect(names(clientsAsClient)).toStrictEqual(['search-reader']);
    expect((await search('node', '*:*', { as: 'validator' })).status).toBe(403);
  });
});

describe('GET /search/client', () => {
  it('finds clients by name and validator, and follows renames and deletes', async () => {
    const created = await chef.request('POST', 'clients', { body: { name: 's-client-1', create_key: true } });
    expect(created.status).toBe(201);
    const res = await search('client', 'name:s-client-1');
    expect(res.json.total).toBe(1);
    expect(res.json.rows[0]).toStrictEqual((await chef.request('GET', 'clients/s-client-1')).json);
    // At API v0 a client's JSON carries its default key's public_key, in the search row as in the GET (pedant's search_spec compares them).
    const v0 = await chef.request('GET', `search/client?q=${encodeURIComponent('name:s-client-1')}`, { apiVersion: 0 });
    const get0 = (await chef.request('GET', 'clients/s-client-1', { apiVersion: 0 })).json;
    expect(get0.public_key).toMatch(/BEGIN PUBLIC KEY/);
    expect(v0.json.rows).toStrictEqual([get0]);
    expect((await search('client', 'name:s-client-1 AND validator:false')).json.total).toBe(1);
    expect((await chef.request('PUT', 'clients/s-client-1', { body: { name: 's-client-2' } })).status).toBe(201);
    expect((await search('client', 'name:s-client-1')).json.total).toBe(0);
    expect((await search('client', 'name:s-client-2')).json.total).toBe(1);
    expect((await chef.request('DELETE', 'clients/s-client-2')).status).toBe(200);
    expect((await search('client', 'name:s-client-2')).json.total).toBe(0);
  });
});

describe('never stale: a saved node is found by the next request', () => {
  it('sequential save-then-search, many times', async () => {
    for (let i = 0; i < 20; i++) {
      const body = node(`s-seq-${i}`, { normal: { marker: `m${i}` } });
      expect((await chef.request('POST', 'nodes', { body })).status).toBe(201);
      const res = await search('node', `marker:m${i}`);
      expect(names(res)).toStrictEqual([`s-seq-${i}`]);
    }
  });

  it('concurrent saves and searches: each writer finds its own save, and the final state is what is indexed', async () => {
    const writers = Array.from({ length: 8 }, (_, w) => w);
    expect((await chef.request('POST', 'nodes', { body: node('s-race', { normal: { gen: 'g0' } }) })).status).toBe(201);
    await Promise.all(
      writers.map(async (w) => {
        const name = `s-race-${w}`;
        expect((await chef.request('POST', 'nodes', { body: node(name, { normal: { gen: 'start' } }) })).status).toBe(201);
        for (let g = 1; g <= 5; g++) {
          expect((await chef.request('PUT', `nodes/${name}`, { body: node(name, { normal: { gen: `w${w}g${g}` } }) })).status).toBe(200);
          // Everyone also writes the shared node: concurrent updates of one object.
          expect((await chef.request('PUT', 'nodes/s-race', { body: node('s-race', { normal: { gen: `w${w}g${g}` } }) })).status).toBe(200);
          const mine = await search('node', `gen:w${w}g${g} AND name:s-race-*`);
          expect(mine.status).toBe(200);
          expect(names(mine)).toStrictEqual([name]);
        }
      }),
    );
    const shared = (await chef.request('GET', 'nodes/s-race')).json;
    const gens = await search('node', 'name:s-race');
    expect(gens.json.rows).toStrictEqual([shared]);
    // Only the last saved generation finds the shared node.
    const byGen = await search('node', `gen:${shared.normal.gen} AND name:s-race`);
    expect(byGen.json.total).toBe(1);
    const stale = await search('node', `name:s-race AND NOT gen:${shared.normal.gen}`);
    expect(stale.json.total).toBe(0);
  });
});

describe("the index write is part of its object's transaction", () => {
  it('rolls back with it, and reads what the transaction wrote before it (SQLite: statements run directly on the transaction connection)', async () => {
    const probe = { name: 's-rollback', automatic: { platform: 'tx-probe' } };
    const found = async (q: string) => (await searchIndex('node', parseSearchQuery(q), { kind: 'all' }, { start: 0, rows: 10 })).names;
    await expect(
      db().$transaction(async (tx) => {
        // On SQLite the index's statements run directly on this transaction's connection; on PostgreSQL through Prisma.
        expect(sqliteDirect(tx) !== undefined).toBe(providerOf(db()) === 'sqlite');
        await indexNode(tx, probe);
        // Inside the transaction its own index rows are there: a second write of the same node updates them (no duplicate document).
        await indexNode(tx, { ...probe, automatic: { platform: 'tx-probe2' } });
        expect(await searchIndex('node', parseSearchQuery('platform:tx-probe2'), { kind: 'all' }, { start: 0, rows: 10 }, tx)).toStrictEqual({ total: 1, names: ['s-rollback'] });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await found('platform:tx-probe*')).toStrictEqual([]);
    expect(await db().searchDoc.count({ where: { idx: 'node', name: 's-rollback' } })).toBe(0);
    await db().$transaction(async (tx) => indexNode(tx, probe));
    expect(await found('platform:tx-probe')).toStrictEqual(['s-rollback']);
    await db().$transaction(async (tx) => unindexNode(tx, 's-rollback'));
    expect(await found('platform:tx-probe')).toStrictEqual([]);
  });
});

describe('the database answers as the reference matcher does', () => {
  const platforms = ['ubuntu', 'debian', 'centos', 'rocky linux'];
  const tiers = ['web', 'db', 'cache'];
  const docs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 12; i++) {
      const n = node(`p-${i}`, {
        policy_name: i % 2 ? 'base' : 'web',
        policy_group: i % 3 ? 'production' : 'staging',
        normal: { app: { tier: tiers[i % 3], port: 8000 + i }, tags: i % 4 ? ['blue'] : ['green', 'blue'] },
        automatic: { platform: platforms[i % 4], platform_version: `${20 + (i % 5)}.04`, kernel: { release: `5.${i}.0` } },
      });
      docs.push(n);
      expect((await chef.request('POST', 'nodes', { body: n })).status).toBe(201);
    }
  });

  const value = fc.constantFrom('ubuntu', 'debian', 'rocky', 'rocky linux', 'web', 'db', 'cache', 'blue', 'green', 'production', 'staging', 'base', '8003', '22.04', 'p-1', 'p-10', '5.3.0');
  const field = fc.constantFrom('platform', 'tier', 'app_tier', 'tags', 'policy_group', 'policy_name', 'port', 'platform_version', 'name', 'release', 'kernel_release', '*');
  const leaf = fc.oneof(
    fc.tuple(field, value).map(([f, v]) => `${f}:${v.includes(' ') ? `"${v}"` : v}`),
    fc.tuple(field, value).map(([f, v]) => `${f}:${v.split(' ')[0].slice(0, 3)}*`),
    fc.tuple(field, value).map(([f, v]) => `${f}:?${v.split(' ')[0].slice(1)}`),
    fc.tuple(field, value, value).map(([f, a, b]) => `${f}:[${a.split(' ')[0]} TO ${b.split(' ')[0]}]`),
    fc.tuple(field, value, value).map(([f, a, b]) => `${f}:{${a.split(' ')[0]} TO ${b.split(' ')[0]}}`),
    field.map((f) => `${f === '*' ? 'platform' : f}:*`),
  );
  const query: fc.Arbitrary<string> = fc.letrec<{ q: string }>((tie) => ({
    q: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.tuple(tie('q'), tie('q')).map(([a, b]) => `(${a}) AND (${b})`),
      fc.tuple(tie('q'), tie('q')).map(([a, b]) => `(${a}) OR (${b})`),
      fc.tuple(tie('q'), tie('q')).map(([a, b]) => `${a} -(${b})`),
      tie('q').map((a) => `NOT (${a})`),
    ),
  })).q;

  it('for generated queries over generated nodes', async () => {
    const rows = docs.map((d) => ({ name: d.name as string, rows: flattenForIndex(nodeSearchDocument(d)) }));
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const parsed = parseSearchQuery(q);
        const want = rows.filter((r) => matchesRows(parsed, r.rows)).map((r) => r.name).sort();
        const scoped: SearchQuery = { kind: 'and', clauses: [parseSearchQuery('name:p-*'), parsed] };
        const got = await searchIndex('node', scoped, { kind: 'all' }, { start: 0, rows: 1000 });
        expect([...got.names].sort(), q).toStrictEqual(want);
        expect(got.total).toBe(want.length);
      }),
      { numRuns: 150 },
    );
  });
});

describe('GET /search/<data bag>', () => {
  const alice = { id: 'alice', ssh: { public_key: '---RSA Public Key--- Alice', private_key: '---RSA Private Key-- Alice' } };
  const bob = { id: 'bob', ssh: { public_key: '---RSA Public Key--- Bob' } };
  const carol = { id: 'carol', ssh: { noise: '6b6e0824d5b85a3cd209b279bba3d5ea9df6aae891eab056521953ecb36466c8' } };

  beforeAll(async () => {
    expect((await chef.request('POST', 'data', { body: { name: 's_users' } })).status).toBe(201);
    for (const item of [alice, bob, carol]) expect((await chef.request('POST', 'data/s_users', { body: item })).status).toBe(201);
    expect((await chef.request('POST', 'data', { body: { name: 's_x' } })).status).toBe(201);
    for (const item of [{ id: 'foo', path: 'foo/bar' }, { id: 'foo-bar' }]) expect((await chef.request('POST', 'data/s_x', { body: item })).status).toBe(201);
  });

  const wrapped = (bag: string, item: Record<string, unknown>) => ({ name: `data_bag_item_${bag}_${item.id}`, json_class: 'Chef::DataBagItem', chef_type: 'data_bag_item', data_bag: bag, raw_data: item });

  it('lists data bags among the indexes', async () => {
    const res = await chef.request('GET', 'search');
    expect(res.json).toMatchObject({ s_users: `${chef.orgUrl}/search/s_users`, s_x: `${chef.orgUrl}/search/s_x` });
  });

  it("answers pedant's data bag cases: wrapped rows, nested keys (CHEF-3975), the tokenizer and special characters", async () => {
    const bar = await search('s_users', 'id:bob');
    expect(bar.json).toStrictEqual({ total: 1, start: 0, rows: [wrapped('s_users', bob)] });
    const nested = await search('s_users', 'ssh_public_key:*');
    expect(nested.json.rows).toStrictEqual([wrapped('s_users', alice), wrapped('s_users', bob)]);
    expect((await search('s_users', 'raw_data_ssh_public_key:*')).json.total).toBe(0);
    expect(names(await search('s_x', 'id:foo-bar'))).toStrictEqual(['data_bag_item_s_x_foo-bar']);
    expect(names(await search('s_x', 'id:foo* AND NOT bar'))).toStrictEqual(['data_bag_item_s_x_foo', 'data_bag_item_s_x_foo-bar']);
    expect(names(await search('s_x', 'path:foo\\/*'))).toStrictEqual(['data_bag_item_s_x_foo']);
  });

  it('partial search reads paths from the item itself, with the item URL', async () => {
    const res = await chef.request('POST', `search/s_users?q=${encodeURIComponent('id:alice')}`, { body: { key: ['ssh', 'public_key'], id: ['id'], nope: ['raw_data', 'id'] } });
    expect(res.json).toStrictEqual({ total: 1, start: 0, rows: [{ url: `${chef.orgUrl}/data/s_users/alice`, data: { key: alice.ssh.public_key, id: 'alice', nope: null } }] });
  });

  it('follows item updates and deletes, and a deleted bag is an unknown index again', async () => {
    expect((await chef.request('PUT', 'data/s_users/carol', { body: { ...carol, ssh: { public_key: 'now one' } } })).status).toBe(200);
    expect((await search('s_users', 'public_key:now')).json.total).toBe(1);
    expect((await chef.request('DELETE', 'data/s_users/carol')).status).toBe(200);
    expect((await search('s_users', 'public_key:now')).json.total).toBe(0);
    expect((await chef.request('DELETE', 'data/s_x')).status).toBe(200);
    const gone = await search('s_x', '*:*');
    expect(gone.status).toBe(404);
    expect(await db().searchDoc.count({ where: { idx: 'bag:s_x' } })).toBe(0);
  });
});
