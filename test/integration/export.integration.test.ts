/**
 * Issue 42, a way out: `npm run export -- --dir DIR` writes the organization as knife ec backup lays it out
 * (users/, key_dump.json, key_table_dump.json, organizations/ORG/{clients,nodes,data_bags,policies,policy_groups,
 * cookbook_artifacts,groups,acls,containers,members.json,invitations.json,org.json}); `npm run import -- --dir`
 * reads it back without a change, and `--verify --dir` finds no difference, then finds the one made after.
 * Both databases. (The real knife restoring it into chef-zero, and a second console: test/chef/move.chef.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { computeRevisionId } from '@/lib/domain';
import { DirectorySource, exportOrganization, runImport, verifyImport } from '@/lib/services/import';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { accessFor } from '../helpers';

let admin: Access;
let tmp: string;
const pem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

function put(root: string, rel: string, body: unknown) {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
}

beforeAll(async () => {
  await db().user.create({ data: { email: 'ops@example.com', name: 'Ops', isAdmin: true, passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
  admin = await accessFor('ops@example.com');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'export-'));
  // A source organization, imported first (the console then holds every kind of object).
  const src = path.join(tmp, 'src');
  const text = JSON.stringify({ revision_id: '0'.repeat(64), name: 'web', run_list: ['recipe[web::default]'], cookbook_locks: { web: { version: '1.0.0', identifier: 'b'.repeat(40) } } });
  const id = computeRevisionId(text);
  put(src, 'users/alice.json', { username: 'alice', email: 'alice@example.com', display_name: 'Alice Liddell', first_name: 'Alice', last_name: 'Liddell', public_key: pem() });
  put(src, 'organizations/acme/members.json', [{ user: { username: 'alice' } }]);
  put(src, 'organizations/acme/groups/admins.json', { name: 'admins', users: ['alice'], clients: [], groups: [] });
  put(src, `organizations/acme/policies/web-${id}.json`, text.replace('0'.repeat(64), id));
  put(src, 'organizations/acme/policy_groups/staging.json', { policies: { web: { revision_id: id } } });
  put(src, `organizations/acme/cookbook_artifacts/web-${'b'.repeat(40)}/metadata.rb`, "name 'web'\nversion '1.0.0'\n");
  put(src, `organizations/acme/cookbook_artifacts/web-${'b'.repeat(40)}/recipes/default.rb`, "log 'hello'\n");
  put(src, `organizations/acme/cookbook_artifacts/web-${'b'.repeat(40)}/files/default/blob.bin`, Buffer.from([0, 1, 2, 255, 254]));
  put(src, 'organizations/acme/data_bags/app/settings.json', '{"id":"settings","timeout":1.0,"hosts":["db1"]}');
  put(src, 'organizations/acme/nodes/web-1.json', '{"name":"web-1","chef_type":"node","json_class":"Chef::Node","chef_environment":"_default","policy_group":"staging","policy_name":"web","run_list":[],"normal":{"run_time_limit":1.0,"big":1234567890123456789012345678901},"default":{},"override":{},"automatic":{"ohai_time":1764588000.5}}');
  put(src, 'organizations/acme/clients/web-1.json', { name: 'web-1', validator: false, public_key: pem() });
  const { report } = await runImport(admin, new DirectorySource(src));
  expect(report.skipped).toEqual([]);
  expect(report.conflicts).toEqual([]);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('npm run export', () => {
  it('writes the knife ec backup layout, numbers as sent', async () => {
    const out = path.join(tmp, 'backup');
    const r = await exportOrganization(admin, out);
    const org = path.join(out, 'organizations', r.organization);
    const files = (d: string) => spawnSync('find', [d, '-type', 'f'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map((f) => path.relative(out, f)).sort();
    const all = files(out);
    for (const f of [
      'key_dump.json',
      'key_table_dump.json',
      'users/alice.json',
      'user_acls/alice.json',
      `organizations/${r.organization}/org.json`,
      `organizations/${r.organization}/members.json`,
      `organizations/${r.organization}/invitations.json`,
      `organizations/${r.organization}/clients/web-1.json`,
      `organizations/${r.organization}/nodes/web-1.json`,
      `organizations/${r.organization}/data_bags/app/settings.json`,
      `organizations/${r.organization}/policy_groups/staging.json`,
      `organizations/${r.organization}/cookbook_artifacts/web-${'b'.repeat(40)}/recipes/default.rb`,
      `organizations/${r.organization}/cookbook_artifacts/web-${'b'.repeat(40)}/files/default/blob.bin`,
      `organizations/${r.organization}/groups/admins.json`,
      `organizations/${r.organization}/groups/users.json`,
      `organizations/${r.organization}/acls/policy_groups/staging.json`,
      `organizations/${r.organization}/acls/containers/nodes.json`,
      `organizations/${r.organization}/containers/nodes.json`,
    ]) expect(all, f).toContain(f);
    expect(all.some((f) => /^organizations\/[^/]+\/policies\/web-[0-9a-f]{64}\.json$/.test(f))).toBe(true);
    const node = fs.readFileSync(path.join(org, 'nodes/web-1.json'), 'utf8');
    expect(node).toContain('"run_time_limit": 1.0');
    expect(node).toContain('"big": 1234567890123456789012345678901');
    expect(fs.readFileSync(path.join(org, `cookbook_artifacts/web-${'b'.repeat(40)}/files/default/blob.bin`))).toEqual(Buffer.from([0, 1, 2, 255, 254]));
    expect(JSON.parse(fs.readFileSync(path.join(out, 'users/alice.json'), 'utf8'))).toMatchObject({ first_name: 'Alice', last_name: 'Liddell', display_name: 'Alice Liddell' });
    expect(JSON.parse(fs.readFileSync(path.join(org, 'groups/admins.json'), 'utf8')).users).toContain('alice');
    expect(JSON.parse(fs.readFileSync(path.join(out, 'key_table_dump.json'), 'utf8'))).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'web-1', type: 'client', key_name: 'default' })]));
    // Not over an existing tree.
    await expect(exportOrganization(admin, out)).rejects.toThrow(/not empty/);

    // Read back without a change; verify finds none.
    const back = await runImport(admin, new DirectorySource(out));
    expect(back.report.imported).toEqual([]);
    expect(back.report.conflicts).toEqual([]);
    expect(back.report.skipped).toEqual([]);
    const v = await verifyImport(admin, new DirectorySource(out));
    expect(v.differences).toEqual([]);
    expect(v.compared).toBeGreaterThan(8);

    // A change made after the export is a difference, named with its field.
    await db().node.update({ where: { name: 'web-1' }, data: { chefDocument: node.replace('"run_time_limit": 1.0', '"run_time_limit": 1') } });
    const after = await verifyImport(admin, new DirectorySource(out));
    expect(after.differences).toEqual([{ kind: 'node', name: 'web-1', detail: 'differs at /normal/run_time_limit' }]);
  });
});
