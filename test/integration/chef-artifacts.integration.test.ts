/** Sandboxes, the file store and cookbook artifacts over the Chef routes (real HTTP, real signatures). */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { signRequest } from '@/lib/auth/chef-signing';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { snapshot } from '../helpers';
import { apiRoutes } from '@/test/helpers';

let chef: ChefHarness;
beforeAll(async () => {
  chef = await startChefHarness();
  // Artifact requirements here; the demo's protected stages (issue 15) are covered in guarded-stages.integration.test.ts.
  await db().stageProtection.deleteMany();
});
afterAll(async () => chef.close());

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const ID = (n: number) => createHash('sha1').update(String(n)).digest('hex');

/** A signed PUT of raw bytes to an absolute URL, as the tools upload files. */
async function upload(url: string, bytes: string, as: 'dev' | 'viewer' = 'dev', contentMd5?: string) {
  const key = await chef.privateKey(as);
  const path = new URL(url).pathname;
  const headers = { ...signRequest({ method: 'PUT', path, body: bytes, userId: as, privateKey: key }), 'content-type': 'application/x-binary', ...(contentMd5 ? { 'content-md5': contentMd5 } : {}) };
  const r = await fetch(url, { method: 'PUT', headers, body: bytes });
  return { status: r.status, text: await r.text() };
}

async function sandbox(files: string[]) {
  const r = await chef.request('POST', 'sandboxes', { as: 'dev', body: { checksums: Object.fromEntries(files.map((f) => [md5(f), null])) } });
  expect(r.status, r.text).toBe(201);
  return r.json as { uri: string; sandbox_id: string; checksums: Record<string, { url?: string; needs_upload: boolean }> };
}

function manifest(name: string, identifier: string, files: Record<string, string>, version = '1.0.0') {
  return {
    name: `${name}-${version}`,
    cookbook_name: name,
    identifier,
    version,
    chef_type: 'cookbook_version',
    frozen: false,
    metadata: { name, version, dependencies: {} },
    all_files: Object.entries(files).map(([p, content]) => ({ name: p, path: p, checksum: md5(content), specificity: 'default' })),
  };
}

describe('sandboxes', () => {
  it('answers which files are missing, with absolute upload URLs, and reuses stored ones', async () => {
    const sb = await sandbox(['a-1', 'b-1']);
    expect(sb.uri).toBe(`${chef.orgUrl}/sandboxes/${sb.sandbox_id}`);
    for (const c of [md5('a-1'), md5('b-1')]) {
      expect(sb.checksums[c].needs_upload).toBe(true);
      expect(sb.checksums[c].url).toMatch(new RegExp(`^${chef.orgUrl}/`));
    }
    expect((await upload(sb.checksums[md5('a-1')].url!, 'a-1')).status).toBe(204);
    // Not every file arrived: the commit is refused and names the missing one.
    const early = await chef.request('PUT', `sandboxes/${sb.sandbox_id}`, { as: 'dev', body: { is_completed: true } });
    expect(early.status).toBe(400);
    expect(early.json.error[0]).toContain(md5('b-1'));
    expect((await upload(sb.checksums[md5('b-1')].url!, 'b-1')).status).toBe(204);
    const done = await chef.request('PUT', `sandboxes/${sb.sandbox_id}`, { as: 'dev', body: { is_completed: true } });
    expect(done.status).toBe(200);
    expect(done.json.is_completed).toBe(true);
    // A new sandbox with a stored file does not ask for it again.
    const again = await sandbox(['a-1', 'c-1']);
    expect(again.checksums[md5('a-1')]).toEqual({ needs_upload: false });
    expect(again.checksums[md5('c-1')].needs_upload).toBe(true);
  });

  it('refuses bytes that do not match their checksum or Content-MD5, storing nothing', async () => {
    const sb = await sandbox(['good-bytes']);
    const url = sb.checksums[md5('good-bytes')].url!;
    const before = snapshot({ except: ['ChefKey'] });
    expect((await upload(url, 'other-bytes')).status).toBe(400);
    expect((await upload(url, 'good-bytes', 'dev', createHash('md5').update('x').digest('base64'))).status).toBe(400);
    expect(snapshot({ except: ['ChefKey'] })).toBe(before);
    expect((await upload(url, 'good-bytes', 'dev', createHash('md5').update('good-bytes').digest('base64'))).status).toBe(204);
    expect(await db().cookbookFile.count({ where: { checksum: md5('good-bytes') } })).toBe(1);
  });

  it('is for people who may upload cookbooks: a viewer in no team and a node are refused', async () => {
    expect((await chef.request('POST', 'sandboxes', { as: 'viewer', body: { checksums: { [md5('v')]: null } } })).status).toBe(403);
    expect((await chef.request('POST', 'sandboxes', { as: 'client:node-a', body: { checksums: { [md5('v')]: null } } })).status).toBe(403);
    expect((await chef.request('POST', 'sandboxes', { as: 'dev', body: { checksums: { 'not-md5': null } } })).status).toBe(400);
  });
});

describe('cookbook artifacts', () => {
  async function stored(files: Record<string, string>) {
    const sb = await sandbox(Object.values(files));
    for (const content of Object.values(files)) {
      const c = sb.checksums[md5(content)];
      if (c.needs_upload) expect((await upload(c.url!, content)).status).toBe(204);
    }
    expect((await chef.request('PUT', `sandboxes/${sb.sandbox_id}`, { as: 'dev', body: { is_completed: true } })).status).toBe(200);
  }

  /** A pre-signed file URL (lib/auth/presigned-url.ts). */
  const fileUrl = (checksum: string) => new RegExp(`^${chef.orgUrl.replace(/[.]/g, '\\.')}/file_store/checksums/${checksum}\\?expires=\\d+&signature=[0-9a-f]{64}$`);

  it('stores a v2 manifest once, serves it with absolute file URLs, and is immutable', async () => {
    const files = { 'recipes/default.rb': 'log "hi"', 'metadata.rb': "name 'art'" };
    await stored(files);
    const m = manifest('art', ID(1), files);
    const put = await chef.request('PUT', `cookbook_artifacts/art/${ID(1)}`, { as: 'dev', body: m });
    expect(put.status, put.text).toBe(201);
    expect(put.headers.get('location')).toBe(`${chef.orgUrl}/cookbook_artifacts/art/${ID(1)}`);
    expect((await chef.request('PUT', `cookbook_artifacts/art/${ID(1)}`, { as: 'dev', body: m })).status).toBe(200);
    const other = await chef.request('PUT', `cookbook_artifacts/art/${ID(1)}`, { as: 'dev', body: { ...m, version: '1.0.1' } });
    expect(other.status).toBe(409);

    const got = await chef.request('GET', `cookbook_artifacts/art/${ID(1)}`, { as: 'client:node-b' });
    expect(got.status).toBe(200);
    for (const f of got.json.all_files) expect(f.url).toMatch(fileUrl(f.checksum));
    const list = await chef.request('GET', 'cookbook_artifacts?num_versions=all', { as: 'dev' });
    expect(list.json.art).toEqual({ url: `${chef.orgUrl}/cookbook_artifacts/art`, versions: [{ url: `${chef.orgUrl}/cookbook_artifacts/art/${ID(1)}`, identifier: ID(1) }] });
  });

  it('accepts a v0 segment manifest', async () => {
    const files = { 'default.rb': 'log "v0"' };
    await stored(files);
    const m = { cookbook_name: 'old', name: 'old-0.1.0', version: '0.1.0', metadata: { version: '0.1.0' }, recipes: [{ name: 'default.rb', path: 'recipes/default.rb', checksum: md5('log "v0"'), specificity: 'default' }] };
    const put = await chef.request('PUT', `cookbook_artifacts/old/${ID(2)}`, { as: 'dev', body: m, apiVersion: 0 });
    expect(put.status, put.text).toBe(201);
    const got = await chef.request('GET', `cookbook_artifacts/old/${ID(2)}`, { as: 'dev' });
    expect(got.json.recipes[0].url).toMatch(fileUrl(md5('log "v0"')));
  });

  it('refuses a manifest naming a file that was never uploaded, storing nothing', async () => {
    const before = snapshot({ except: ['ChefKey'] });
    const r = await chef.request('PUT', `cookbook_artifacts/ghost/${ID(3)}`, { as: 'dev', body: manifest('ghost', ID(3), { 'recipes/default.rb': 'never uploaded' }) });
    expect(r.status).toBe(400);
    expect(r.json.error).toEqual(["Manifest has a checksum that hasn't been uploaded."]);
    expect(snapshot({ except: ['ChefKey'] })).toBe(before);
  });

  it('downloads carry ETag and immutable caching, for callers who may read cookbooks', async () => {
    const c = md5('log "hi"');
    const r = await chef.request('GET', `file_store/checksums/${c}`, { as: 'client:node-c' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('log "hi"');
    expect(r.headers.get('etag')).toBe(`"${c}"`);
    expect(r.headers.get('cache-control')).toContain('immutable');
    expect((await chef.request('GET', `file_store/checksums/${c}`, { as: 'client:node-c', headers: { 'if-none-match': `"${c}"` } })).status).toBe(304);
    expect((await chef.request('GET', `file_store/checksums/${c}`, { as: 'anonymous' })).status).toBe(401);
    expect((await chef.request('GET', `file_store/checksums/${c}`, { as: 'validator' })).status).toBe(403);
  });

  // Issue 23: Chef hands out file URLs that work unsigned until they expire (bookshelf/S3); tampering breaks them.
  it('file URLs are pre-signed: fetched unsigned they answer the file; another path or expiry under the same signature is refused', async () => {
    const got = await chef.request('GET', `cookbook_artifacts/art/${ID(1)}`, { as: 'dev' });
    const f = (got.json.all_files as { path: string; checksum: string; url: string }[]).find((x) => x.path === 'recipes/default.rb')!;
    const plain = await fetch(f.url);
    expect(plain.status).toBe(200);
    expect(await plain.text()).toBe('log "hi"');
    const u = new URL(f.url);
    const other = new URL(u);
    other.pathname = u.pathname.replace(f.checksum, md5("name 'art'"));
    expect((await fetch(other)).status).toBe(403);
    const later = new URL(u);
    later.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 900));
    expect((await fetch(later)).status).toBe(403);
    u.search = '';
    expect((await fetch(u)).status).toBe(401);
  });

  it('deleting an artifact a stage runs is refused; an unpinned one can go', async () => {
    // Pin art@ID(1) through a lock the dev stage runs.
    const lock = { revision_id: 'a'.repeat(64), name: 'art-policy', run_list: ['recipe[art::default]'], cookbook_locks: { art: { version: '1.0.0', identifier: ID(1) } } };
    const { computeRevisionId } = await import('@/lib/domain');
    lock.revision_id = computeRevisionId(JSON.stringify(lock));
    const set = await chef.request('PUT', 'policy_groups/dev/policies/art-policy', { as: 'dev', body: lock });
    expect(set.status, set.text).toBe(201);
    const refused = await chef.request('DELETE', `cookbook_artifacts/art/${ID(1)}`, { as: 'dev' });
    expect(refused.status).toBe(409);
    expect(refused.json.error[0]).toContain('dev runs for art-policy');
    expect((await chef.request('DELETE', `cookbook_artifacts/old/${ID(2)}`, { as: 'dev' })).status).toBe(200);
    expect((await chef.request('GET', `cookbook_artifacts/old/${ID(2)}`, { as: 'dev' })).status).toBe(404);
  });
});

describe('stages that require artifacts', () => {
  it('refuse a promotion whose cookbooks are not all on the server, unless an override reason is given (audited)', async () => {
    const { promotePolicy } = await import('@/lib/services/promotion');
    const { accessFor } = await import('../helpers');
    const { computeRevisionId } = await import('@/lib/domain');
    // A revision in dev pinning a cookbook nobody uploaded.
    const lock = { revision_id: '', name: 'webapp', run_list: ['recipe[ghostly::default]'], cookbook_locks: { ghostly: { version: '1.0.0', identifier: ID(99) } } };
    lock.revision_id = computeRevisionId(JSON.stringify(lock));
    expect((await chef.request('PUT', 'policy_groups/dev/policies/webapp', { as: 'admin', body: lock })).status).toBe(200);
    const release = await accessFor('release@example.com');
    const production = await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'production' }, policy: { name: 'webapp' } }, select: { revision: { select: { revisionId: true } } } });
    // release may view dev; the demo's production requires artifacts.
    await db().groupPermission.updateMany({ where: { userId: release.userId, group: { name: 'dev' } }, data: { level: 'view' } });
    const input = { policy: 'webapp', from: 'dev', to: 'production', expectedRevisionId: production.revision.revisionId };
    const before = snapshot({ except: ['ChefKey'] });
    await expect(promotePolicy(release, input)).rejects.toMatchObject({ status: 409, details: { missing_artifacts: [`ghostly ${ID(99)}`] } });
    expect(snapshot({ except: ['ChefKey'] })).toBe(before);
    const done = await promotePolicy(release, { ...input, overrideReason: 'hotfix: cookbook is vendored on the hosts' });
    expect(done.changed).toBe(true);
    const event = await db().auditEvent.findFirstOrThrow({ where: { id: done.auditId! }, select: { after: true, reason: true } });
    expect(JSON.parse(event.after!).artifacts_override).toEqual({ reason: 'hotfix: cookbook is vendored on the hosts', missing: [`ghostly ${ID(99)}`] });
  });

  it('the demo organisation has real artifacts for every cookbook its stages run', async () => {
    const { missingArtifacts, revisionPins } = await import('@/lib/db/queries/missing-artifacts');
    const rows = await db().groupPolicy.findMany({ where: { group: { name: { in: ['staging', 'qa'] } } }, select: { revisionPk: true } });
    for (const r of rows) expect(await missingArtifacts(await revisionPins(db(), r.revisionPk))).toEqual([]);
    expect(await db().policyGroup.findMany({ where: { requireArtifacts: true }, select: { name: true }, orderBy: { position: 'asc' } })).toEqual([{ name: 'staging' }, { name: 'production' }]);
  });
});

describe('what the console shows before a promotion', () => {
  it('the diff lists the incoming revision\'s missing artifacts and whether the target stage requires them; managers switch the rule', async () => {
    const { GET } = apiRoutes('/api/v1/diff');
    const { PUT } = apiRoutes('/api/v1/policy_groups/[group]');
    const { call, tokenFor } = await import('../helpers');
    // dev runs the ghostly webapp revision from the test above, with one cookbook missing.
    const token = await tokenFor('release@example.com');
    const r = await call(GET, 'GET', { token, query: 'policy=webapp&from=dev&to=production' });
    expect(r.status).toBe(200);
    expect(r.json.missing_artifacts).toEqual([`ghostly ${ID(99)}`]);
    expect(r.json.to_requires_artifacts).toBe(true);
    const clean = await call(GET, 'GET', { token, query: 'policy=base&from=staging&to=production' });
    expect(clean.json.missing_artifacts).toEqual([]);

    // release may not change the rule; admin may.
    expect((await call(PUT, 'PUT', { token, params: { group: 'production' }, body: { require_artifacts: false } })).status).toBe(403);
    const admin = await tokenFor('admin@example.com');
    expect((await call(PUT, 'PUT', { token: admin, params: { group: 'qa' }, body: { require_artifacts: true } })).status).toBe(200);
    expect((await db().policyGroup.findUniqueOrThrow({ where: { name: 'qa' }, select: { requireArtifacts: true } })).requireArtifacts).toBe(true);
    expect((await call(PUT, 'PUT', { token: admin, params: { group: 'qa' }, body: { require_artifacts: 'yes' } })).status).toBe(400);
  });
});
