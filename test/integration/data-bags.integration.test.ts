/**
 * Data bags on the Chef routes beyond pedant: who may read and write what
 * (clients by Chef's default, the per-bag stage restriction on every route,
 * users by grants), bad input refused with nothing stored, encrypted items
 * kept byte for byte, and the audit trail of every write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { startChefHarness, type ChefActor, type ChefHarness } from '@/test/chef-harness';
import { accessFor, snapshot } from '@/test/helpers';
import { setDataBagGrant, setDataBagStages } from '@/lib/services/data-bags';
import { chefMaxRequestSize } from '@/lib/config';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

let chef: ChefHarness;
const SNAPSHOT_EXCEPT = ['ChefKey', 'ChefClient', 'ChefName'];

/** A Chef format 3 encrypted field (what `knife data bag from file --secret-file` sends). */
const ENCRYPTED = {
  id: 'db',
  password: { encrypted_data: 'i0bXyOQ5ByMl3RfqVwCBa2Dh\n', iv: 'Fb3Z+ff4/NnGr7yD\n', auth_tag: 'RV5Q0LUfjxsbbTPe6kEFKQ==\n', version: 3, cipher: 'aes-256-gcm' },
};

beforeAll(async () => {
  chef = await startChefHarness();
  // A user with no team and no stage grant.
  await db().user.create({ data: { email: 'nobody@example.com', name: 'No Body', chefName: 'nobody', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
  await db().chefName.create({ data: { name: 'nobody', kind: 'user' } });
  // Two nodes with their clients: one in dev, one in production; and a client with no node.
  for (const [client, stage] of [
    ['web-dev-1', 'dev'],
    ['web-prod-1', 'production'],
  ] as const) {
    // Issue 41: production is closed to enrollment, so an administrator places that node (dev is open: its client does).
    const r = await chef.request('POST', 'nodes', { as: stage === 'production' ? 'admin' : `client:${client}`, body: { name: client, policy_name: 'webapp', policy_group: stage } });
    expect(r.status, r.text).toBe(201);
  }
  await chef.privateKey('client:loner');
  await chef.privateKey('validator');
  // Bags: settings (open), prod-secrets (production only), each with an item.
  for (const bag of ['settings', 'prod-secrets']) {
    expect((await chef.request('POST', 'data', { as: 'admin', body: { name: bag } })).status).toBe(201);
    expect((await chef.request('POST', `data/${bag}`, { as: 'admin', body: { id: 'app', port: 8080 } })).status).toBe(201);
  }
  await setDataBagStages(await accessFor('admin@example.com'), 'prod-secrets', ['production']);
});

afterAll(async () => {
  await chef?.close();
});

const as = (actor: string) => actor as ChefActor;

describe('clients read every bag by default; a restricted bag only from its stages', () => {
  it('a dev node reads the open bag and its items', async () => {
    expect((await chef.request('GET', 'data/settings', { as: 'client:web-dev-1' })).status).toBe(200);
    const item = await chef.request('GET', 'data/settings/app', { as: 'client:web-dev-1' });
    expect(item.status).toBe(200);
    expect(item.json).toStrictEqual({ id: 'app', port: 8080 });
  });

  it('a dev node is refused the production-only bag on every route, and nothing changes', async () => {
    const c = 'client:web-dev-1' as const;
    const list = await chef.request('GET', 'data', { as: c });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json)).toContain('settings');
    expect(Object.keys(list.json)).not.toContain('prod-secrets');
    const before = snapshot({ except: SNAPSHOT_EXCEPT });
    const tries: [string, string, unknown?][] = [
      ['GET', 'data/prod-secrets'],
      ['POST', 'data/prod-secrets', { id: 'x' }],
      ['DELETE', 'data/prod-secrets'],
      ['GET', 'data/prod-secrets/app'],
      ['PUT', 'data/prod-secrets/app', { id: 'app', port: 1 }],
      ['DELETE', 'data/prod-secrets/app'],
    ];
    for (const [method, path, body] of tries) {
      const r = await chef.request(method, path, { as: c, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.json.error[0], `${method} ${path}`).toMatch(/web-dev-1.*prod-secrets.*restricted to the clients of stage production/);
    }
    expect(snapshot({ except: SNAPSHOT_EXCEPT })).toBe(before);
  });

  it('a production node reads it; a client with no node does not', async () => {
    const ok = await chef.request('GET', 'data/prod-secrets/app', { as: 'client:web-prod-1' });
    expect(ok.status).toBe(200);
    expect(ok.json).toStrictEqual({ id: 'app', port: 8080 });
    expect(Object.keys((await chef.request('GET', 'data', { as: 'client:web-prod-1' })).json)).toEqual(expect.arrayContaining(['settings', 'prod-secrets']));
    expect((await chef.request('GET', 'data/prod-secrets/app', { as: 'client:loner' })).status).toBe(403);
    expect((await chef.request('GET', 'data/settings/app', { as: 'client:loner' })).status).toBe(200);
  });

  it('clients never write, even to an open bag; the validator reads nothing', async () => {
    const before = snapshot({ except: SNAPSHOT_EXCEPT });
    expect((await chef.request('POST', 'data', { as: 'client:web-prod-1', body: { name: 'mine' } })).status).toBe(403);
    expect((await chef.request('POST', 'data/settings', { as: 'client:web-prod-1', body: { id: 'x' } })).status).toBe(403);
    expect((await chef.request('PUT', 'data/settings/app', { as: 'client:web-prod-1', body: { id: 'app' } })).status).toBe(403);
    expect((await chef.request('DELETE', 'data/settings/app', { as: 'client:web-prod-1' })).status).toBe(403);
    expect((await chef.request('DELETE', 'data/settings', { as: 'client:web-prod-1' })).status).toBe(403);
    for (const path of ['data', 'data/settings', 'data/settings/app']) expect((await chef.request('GET', path, { as: 'validator' })).status, path).toBe(403);
    expect(snapshot({ except: SNAPSHOT_EXCEPT })).toBe(before);
  });

  it('lifting the restriction opens the bag to the dev node again', async () => {
    const admin = await accessFor('admin@example.com');
    await setDataBagStages(admin, 'prod-secrets', []);
    expect((await chef.request('GET', 'data/prod-secrets/app', { as: 'client:web-dev-1' })).status).toBe(200);
    await setDataBagStages(admin, 'prod-secrets', ['production']);
    expect((await chef.request('GET', 'data/prod-secrets/app', { as: 'client:web-dev-1' })).status).toBe(403);
  });

  it('only administrators restrict bags, to stages that exist', async () => {
    await expect(setDataBagStages(await accessFor('dev@example.com'), 'settings', ['production'])).rejects.toMatchObject({ status: 403 });
    await expect(setDataBagStages(await accessFor('admin@example.com'), 'settings', ['nowhere'])).rejects.toMatchObject({ status: 400, message: "Unknown stage 'nowhere'" });
    expect(await db().dataBagStage.count({ where: { bag: { name: 'settings' } } })).toBe(0);
  });
});

describe('users: admins, team grants, stage viewers', () => {
  it('a team member creates a bag; their team writes it, another team only reads it', async () => {
    const r = await chef.request('POST', 'data', { as: 'dev', body: { name: 'web-settings' } });
    expect(r.status).toBe(201);
    expect((await chef.request('POST', 'data/web-settings', { as: 'dev', body: { id: 'a', v: 1 } })).status).toBe(201);
    expect((await chef.request('GET', 'data/web-settings/a', { as: 'dba' })).status).toBe(200);
    const refused = await chef.request('PUT', 'data/web-settings/a', { as: 'dba', body: { id: 'a', v: 2 } });
    expect(refused.status).toBe(403);
    expect(refused.json.error[0]).toMatch(/only administrators and teams granted write/);
    // An admin grants the dba team write.
    const dba = await db().team.findUniqueOrThrow({ where: { name: 'dba' } });
    await setDataBagGrant(await accessFor('admin@example.com'), 'web-settings', dba.id, 'write');
    expect((await chef.request('PUT', 'data/web-settings/a', { as: 'dba', body: { id: 'a', v: 2 } })).status).toBe(200);
    await setDataBagGrant(await accessFor('admin@example.com'), 'web-settings', dba.id, 'none');
    expect((await chef.request('DELETE', 'data/web-settings', { as: 'dba' })).status).toBe(403);
    await expect(setDataBagGrant(await accessFor('dev@example.com'), 'web-settings', dba.id, 'write')).rejects.toMatchObject({ status: 403 });
  });

  it('a user in no team may not create bags; one who views none of a bag\'s stages may not read it', async () => {
    for (const u of ['nobody', 'release']) await chef.privateKey(as(u) as 'admin');
    const before = snapshot({ except: SNAPSHOT_EXCEPT });
    const c = await chef.request('POST', 'data', { as: as('nobody'), body: { name: 'nope' } });
    expect(c.status).toBe(403);
    expect(c.json.error[0]).toMatch(/only administrators and members of a team/);
    expect(Object.keys((await chef.request('GET', 'data', { as: as('nobody') })).json)).not.toContain('prod-secrets');
    expect((await chef.request('GET', 'data/prod-secrets/app', { as: as('nobody') })).status).toBe(403);
    expect((await chef.request('GET', 'data/settings/app', { as: as('nobody') })).status).toBe(200);
    // release views production: reads the restricted bag, but has no write grant.
    expect((await chef.request('GET', 'data/prod-secrets/app', { as: 'release' })).status).toBe(200);
    expect((await chef.request('DELETE', 'data/prod-secrets/app', { as: 'release' })).status).toBe(403);
    expect(snapshot({ except: SNAPSHOT_EXCEPT })).toBe(before);
  });
});

describe('bad input: a clear 4xx, nothing stored', () => {
  const refusals: [string, string, string | object, number, RegExp][] = [
    ['POST', 'data', '[]', 400, /JSON object/],
    ['POST', 'data', '"settings"', 400, /JSON object/],
    ['POST', 'data', 'not json', 400, /invalid JSON/],
    ['POST', 'data', { name: 'bad name!' }, 400, /Field 'name' invalid/],
    ['POST', 'data', { name: 7 }, 400, /Field 'name' invalid/],
    ['POST', 'data', { name: 'x'.repeat(256) }, 400, /Field 'name' invalid/],
    ['POST', 'data/settings', '[{"id":"a"}]', 400, /JSON object/],
    ['POST', 'data/settings', 'null', 400, /JSON object/],
    ['POST', 'data/settings', { id: 'a/b' }, 400, /Field 'id' invalid/],
    ['POST', 'data/settings', { id: 'caf\u00e9' }, 400, /Field 'id' invalid/],
    ['POST', 'data/settings', { id: 42 }, 400, /Field 'id' invalid/],
    ['POST', 'data/settings', { json_class: 'Chef::DataBagItem', raw_data: 'x' }, 400, /JSON object/],
    ['PUT', 'data/settings/app', '{"id":"app",', 400, /invalid JSON/],
    ['PUT', 'data/settings/app', '7', 400, /JSON object/],
  ];
  it.each(refusals)('%s /%s %j: %i', async (method, path, body, status, message) => {
    const before = snapshot({ except: SNAPSHOT_EXCEPT });
    const r = await chef.request(method, path, { as: 'admin', body });
    expect(r.status).toBe(status);
    expect(r.json.error[0]).toMatch(message);
    expect(r.json.errors).toBeUndefined();
    expect(snapshot({ except: SNAPSHOT_EXCEPT })).toBe(before);
  });

  it.each(['node', 'client', 'role', 'environment'])('a bag named like the search index %s: 400 naming the rule', async (name) => {
    const before = snapshot({ except: SNAPSHOT_EXCEPT });
    const r = await chef.request('POST', 'data', { as: 'admin', body: { name } });
    expect(r.status).toBe(400);
    expect(r.json.error).toStrictEqual([`Field 'name' invalid: '${name}' is the name of a Chef search index (node, client, role, environment)`]);
    expect(snapshot({ except: SNAPSHOT_EXCEPT })).toBe(before);
  });

  it('items nested deeper than the document limit are refused', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 80; i++) deep = { d: deep };
    const r = await chef.request('POST', 'data/settings', { as: 'admin', body: { id: 'deep', deep } });
    expect(r.status).toBe(400);
    expect(r.json.error[0]).toMatch(/nests deeper than 64 levels/);
    expect((await chef.request('GET', 'data/settings/deep', { as: 'admin' })).status).toBe(404);
  });

  it("an item at Chef's request-size limit (2,000,000 bytes) is stored; one byte more is a 413 and nothing is stored", async () => {
    const limit = chefMaxRequestSize();
    expect(limit).toBe(2_000_000);
    const make = (id: string, size: number) => {
      const shell = JSON.stringify({ id, blob: '' });
      return JSON.stringify({ id, blob: 'x'.repeat(size - shell.length) });
    };
    const atLimit = make('big', limit);
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    const ok = await chef.request('POST', 'data/settings', { as: 'admin', body: atLimit });
    expect(ok.status).toBe(201);
    expect((await chef.request('GET', 'data/settings/big', { as: 'admin' })).text).toBe(atLimit);
    const before = snapshot({ except: SNAPSHOT_EXCEPT });
    const r = await chef.request('POST', 'data/settings', { as: 'admin', body: make('bigger', limit + 1) });
    expect(r.status).toBe(413);
    const put = await chef.request('PUT', 'data/settings/big', { as: 'admin', body: make('big', limit + 1) });
    expect(put.status).toBe(413);
    expect(snapshot({ except: SNAPSHOT_EXCEPT })).toBe(before);
    expect((await chef.request('DELETE', 'data/settings/big', { as: 'admin' })).status).toBe(200);
  });

  // Genuinely long work (10,000 rows written, listed and snapshotted twice): a loaded machine needs more than the default 30 s.
  it('a bag holding 10,000 items lists them all and refuses the next one with a 422, nothing stored', { timeout: 180_000 }, async () => {
    expect((await chef.request('POST', 'data', { as: 'admin', body: { name: 'full' } })).status).toBe(201);
    const bag = await db().dataBag.findUniqueOrThrow({ where: { name: 'full' } });
    const ids = Array.from({ length: 10_000 }, (_, i) => `item-${String(i).padStart(5, '0')}`);
    for (let i = 0; i < ids.length; i += 1000) {
      await db().dataBagItem.createMany({ data: ids.slice(i, i + 1000).map((itemId) => ({ bagId: bag.id, itemId, document: JSON.stringify({ id: itemId }) })) });
    }
    await db().dataBag.update({ where: { id: bag.id }, data: { itemCount: ids.length } });
    const list = await chef.request('GET', 'data/full', { as: 'admin' });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json).length).toBe(10_000);
    const before = snapshot({ except: SNAPSHOT_EXCEPT });
    const r = await chef.request('POST', 'data/full', { as: 'admin', body: { id: 'one-more' } });
    expect(r.status).toBe(422);
    expect(r.json.error[0]).toMatch(/already holds 10000 items/);
    expect(snapshot({ except: SNAPSHOT_EXCEPT })).toBe(before);
    // Deleting one makes room for one.
    expect((await chef.request('DELETE', 'data/full/item-00000', { as: 'admin' })).status).toBe(200);
    expect((await chef.request('POST', 'data/full', { as: 'admin', body: { id: 'one-more' } })).status).toBe(201);
    expect((await chef.request('POST', 'data/full', { as: 'admin', body: { id: 'two-more' } })).status).toBe(422);
    expect((await chef.request('DELETE', 'data/full', { as: 'admin' })).status).toBe(200);
  });
});

describe('storage and audit', () => {
  it('an encrypted item is stored byte for byte and audited without its values', async () => {
    const text = `{ "id": "db",\n  "password": ${JSON.stringify(ENCRYPTED.password)}, "n": 12345678901234567890 }`;
    expect((await chef.request('POST', 'data', { as: 'admin', body: { name: 'secrets' } })).status).toBe(201);
    const r = await chef.request('POST', 'data/secrets', { as: 'admin', body: text });
    expect(r.status).toBe(201);
    const g = await chef.request('GET', 'data/secrets/db', { as: 'client:web-dev-1' });
    expect(g.text).toBe(text);
    const ev = await db().auditEvent.findFirstOrThrow({ where: { action: 'data-bag-item.create', target: 'secrets/db' } });
    expect(ev.actorEmail).toBe('admin@example.com');
    expect(ev.via).toMatch(/^chef-key:admin\//);
    expect(JSON.parse(ev.after!)).toStrictEqual({ encrypted: true, version: 3, fields: ['password'] });
    expect(ev.after).not.toContain('i0bXyOQ5');
  });

  it('a plain item\'s update is audited with before and after; a delete with before', async () => {
    expect((await chef.request('POST', 'data/settings', { as: 'admin', body: { id: 'audited', level: 1 } })).status).toBe(201);
    expect((await chef.request('PUT', 'data/settings/audited', { as: 'admin', body: { level: 2 } })).status).toBe(200);
    const upd = await db().auditEvent.findFirstOrThrow({ where: { action: 'data-bag-item.update', target: 'settings/audited' } });
    expect(JSON.parse(upd.before!)).toStrictEqual({ id: 'audited', level: 1 });
    expect(JSON.parse(upd.after!)).toStrictEqual({ level: 2, id: 'audited' });
    expect((await chef.request('DELETE', 'data/settings/audited', { as: 'admin' })).status).toBe(200);
    const del = await db().auditEvent.findFirstOrThrow({ where: { action: 'data-bag-item.delete', target: 'settings/audited' } });
    expect(JSON.parse(del.before!)).toStrictEqual({ level: 2, id: 'audited' });
    expect(del.after).toBeNull();
  });

  it('a wrapped item (json_class Chef::DataBagItem with raw_data) is unwrapped', async () => {
    const r = await chef.request('POST', 'data/settings', { as: 'admin', body: { name: 'data_bag_item_settings_wrapped', json_class: 'Chef::DataBagItem', chef_type: 'data_bag_item', data_bag: 'settings', raw_data: { id: 'wrapped', a: 1 } } });
    expect(r.status).toBe(201);
    expect((await chef.request('GET', 'data/settings/wrapped', { as: 'admin' })).json).toStrictEqual({ id: 'wrapped', a: 1 });
  });
});

describe('console pages', () => {
  it('a vault item shows who can decrypt it and the nodes its search selects without a key; plain items have diffs, encrypted ones none', async () => {
    const { dataBagDetail, dataBagItemDetail, dataBagsPage } = await import('@/lib/services/search');
    expect((await chef.request('POST', 'data', { as: 'admin', body: { name: 'vaults' } })).status).toBe(201);
    expect((await chef.request('POST', 'data/vaults', { as: 'admin', body: { ...ENCRYPTED, id: 'pw' } })).status).toBe(201);
    const keys = { id: 'pw_keys', admins: ['admin'], clients: ['web-dev-1'], search_query: 'policy_group:production', mode: 'default', admin: 'AAA=\n', 'web-dev-1': 'BBB=\n' };
    expect((await chef.request('POST', 'data/vaults', { as: 'admin', body: keys })).status).toBe(201);
    const admin = await accessFor('admin@example.com');
    const bag = await dataBagDetail(admin, 'vaults');
    const pw = bag.items.find((i) => i.id === 'pw')!;
    expect(pw).toMatchObject({ kind: 'encrypted', version: 3, encryptedKeys: ['password'] });
    const inProduction = (await db().node.findMany({ where: { group: { name: 'production' } }, select: { name: true } })).map((n) => n.name).sort();
    expect(inProduction).toContain('web-prod-1');
    expect(pw.vault).toEqual({ admins: ['admin'], clients: ['web-dev-1'], searchQuery: 'policy_group:production', mode: 'default', missing: inProduction, missingNote: null });
    expect(bag.items.find((i) => i.id === 'pw_keys')?.kind).toBe('vault-keys');
    expect(bag.allStages).toEqual(['dev', 'qa', 'staging', 'production']);

    expect((await chef.request('PUT', 'data/vaults/pw', { as: 'admin', body: { ...ENCRYPTED, id: 'pw' } })).status).toBe(200);
    const enc = await dataBagItemDetail(admin, 'vaults', 'pw');
    expect(enc.history.map((h) => [h.action, h.before, h.after])).toEqual([
      ['data-bag-item.update', null, null],
      ['data-bag-item.create', null, null],
    ]);
    const plain = await dataBagItemDetail(admin, 'settings', 'app');
    expect(plain.document).toBe(JSON.stringify({ id: 'app', port: 8080 }, null, 2));
    expect(plain.history.at(-1)).toMatchObject({ action: 'data-bag-item.create', before: null, after: JSON.stringify({ id: 'app', port: 8080 }, null, 2) });

    // The same rights as the API: a user who views no production stage sees neither the bag nor its items.
    const nobody = await accessFor('nobody@example.com');
    expect((await dataBagsPage(nobody)).map((b) => b.name)).not.toContain('prod-secrets');
    await expect(dataBagItemDetail(nobody, 'prod-secrets', 'app')).rejects.toMatchObject({ status: 403 });
    expect((await dataBagsPage(await accessFor('viewer@example.com'))).find((b) => b.name === 'prod-secrets')).toMatchObject({ stages: ['production'], myLevel: 'read' });
  });
});
