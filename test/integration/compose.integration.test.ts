import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, accessFor, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { registerGitRepository } from '@/lib/services/compose';
import { db } from '@/lib/db/client';
import { computeRevisionId, parseLossless, serializeJson, type PolicyLock } from '@/lib/domain';
import { parentFromSpec } from '@/test/differential/compare';
import type { ChefOutcomes, DiffCase } from '@/test/differential/model';
const compose = apiRoutes('/api/v1/policies/[name]/compose');

let dev: string, viewer: string, ops: string;
// The parent locks every cookbook its run list names: a composed lock must be self-consistent (issue 13).
const parent = { run_list: ['webapp::default', 'nginx'], cookbook_locks: { webapp: { version: '1.6.0', identifier: 'webapp160' }, nginx: { version: '12.0.0', identifier: 'nginx1200' } }, default_attributes: { webapp: { workers: 16 } } };

beforeAll(async () => {
  await seed();
  [dev, viewer, ops] = await Promise.all(['dev@example.com', 'viewer@example.com', 'ops@example.com'].map(tokenFor));
  // First use records lastUsedAt; do it now so snapshots compare only what the calls under test change.
  for (const t of [dev, viewer, ops]) await call(compose.POST, 'POST', { token: t, params: { name: 'webapp' }, body: {} });
});

describe('POST /policies/:name/compose', () => {
  it('previews base + monitoring: the production monitoring revision conflicts with base on [ntp][servers]', async () => {
    const res = await call(compose.POST, 'POST', {
      token: viewer,
      params: { name: 'webapp' },
      body: { parent, includes: [{ name: 'base', source: { type: 'server', policy: 'base', group: 'staging' } }, { name: 'monitoring', source: { type: 'server', policy: 'monitoring', group: 'production' } }] },
    });
    expect(res.status).toBe(409);
    expect(res.json.conflicts).toEqual([expect.objectContaining({ kind: 'attribute', path: '[ntp][servers]', precedence: 'default', sources: ['base', 'monitoring'], values: [['ntp1.example.com', 'ntp2.example.com'], ['0.pool.ntp.org']] })]);
    // The error pointer is an RFC 6901 pointer into the composed lock (it was the chef-cli path appended to '/attributes').
    expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual(['/default_attributes/ntp/servers']);
  });

  it('merges with the staging monitoring revision, pins group includes, and saves for the owner team (201)', async () => {
    const body = { parent, includes: [{ name: 'base', source: { type: 'server', policy: 'base', group: 'staging' } }, { name: 'monitoring', source: { type: 'server', policy: 'monitoring', group: 'staging' } }] };
    const preview = await call(compose.POST, 'POST', { token: viewer, params: { name: 'webapp' }, body });
    expect(preview.status).toBe(200);
    expect(preview.json.lock.run_list.slice(0, 1)).toEqual(['recipe[base::default]']);
    expect(preview.json.lock.run_list).toContain('recipe[webapp::default]');
    expect(preview.json.provenance.runList['recipe[collectd::default]']).toBe('monitoring');
    expect(preview.json.lock.included_policy_locks[0].source_options).toMatchObject({ policy_name: 'base', policy_group: 'staging', policy_revision_id: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const before = snapshot();
    const refused = await call(compose.POST, 'POST', { token: ops, params: { name: 'webapp' }, body: { ...body, save: true } });
    expect(refused.status).toBe(403);
    expect(snapshot()).toBe(before);

    const saved = await call(compose.POST, 'POST', { token: dev, params: { name: 'webapp' }, body: { ...body, save: true, group: 'dev', expected_revision_id: (await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'dev' }, policy: { name: 'webapp' } }, select: { revision: { select: { revisionId: true } } } })).revision.revisionId } });
    expect(saved.status).toBe(201);
    const rev = await db().policyRevision.findFirstOrThrow({ where: { revisionId: saved.json.saved.revisionId } });
    expect(rev.origin).toBe('compose');
    expect(rev.computedRevisionId).toBe(rev.revisionId);
    const relock = await call(compose.POST, 'POST', { token: viewer, params: { name: 'webapp' }, body: { parent: { revision: rev.revisionId }, includes: body.includes } });
    expect(relock.status).toBe(200);
    expect(relock.json.previous).toMatchObject({ revisionId: rev.revisionId, diff: { identical: true } });
  });

  it('names what is missing: policy, stage, revision, ref, file', async () => {
    const cases = [
      [{ type: 'server', policy: 'nope', revision: 'x' }, '/includes/0/source/policy'],
      [{ type: 'server', policy: 'base', group: 'nowhere' }, '/includes/0/source/group'],
      [{ type: 'server', policy: 'base', revision: 'nope' }, '/includes/0/source/revision'],
      [{ type: 'git', repository: '/definitely/not/here', path: 'a.json', ref: 'main' }, '/includes/0/source/repository'],
    ] as const;
    // Only a caller who could view a stage of that name learns that it is missing (an admin here); others get 403 either way (issue 17, item 21).
    const admin = await tokenFor('admin@example.com');
    for (const [source, p] of cases) {
      const res = await call(compose.POST, 'POST', { token: 'group' in source ? admin : viewer, params: { name: 'webapp' }, body: { parent, includes: [{ name: 'x', source }] } });
      expect(res.status, JSON.stringify(source)).toBe(400);
      expect(res.json.errors[0].path).toBe(p);
    }
  });

  it('reads a lock from a git repository at a pinned commit', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-git-root-'));
    const dir = path.join(root, 'policies-repo');
    process.env.GIT_LOCAL_ROOT = root;
    await git.init({ fs, dir, defaultBranch: 'main' });
    const write = async (runList: string[], message: string) => {
      fs.mkdirSync(path.join(dir, 'policies'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'policies/mon.lock.json'), JSON.stringify({ name: 'mon', revision_id: `mon-${message}`, run_list: runList, cookbook_locks: { collectd: { version: '2.3.0', identifier: 'c230' } } }));
      await git.add({ fs, dir, filepath: 'policies/mon.lock.json' });
      return git.commit({ fs, dir, message, author: { name: 'Test', email: 't@example.com' } });
    };
    const first = await write(['recipe[collectd::default]'], 'one');
    await write(['recipe[collectd::default]', 'recipe[collectd::plugins]'], 'two');
    // An admin registers the local repository (allowed below GIT_LOCAL_ROOT); compose names it.
    await registerGitRepository(await accessFor('admin@example.com'), { name: 'local-policies', url: dir });
    const at = (ref: string) => call(compose.POST, 'POST', { token: viewer, params: { name: 'webapp' }, body: { parent, includes: [{ name: 'mon', source: { type: 'git', repository: 'local-policies', path: 'policies/mon.lock.json', ref } }] } });
    const head = await at('main');
    expect(head.status).toBe(200);
    expect(head.json.lock.run_list).toContain('recipe[collectd::plugins]');
    const pinned = await at(first);
    expect(pinned.json.lock.run_list).not.toContain('recipe[collectd::plugins]');
    expect(pinned.json.lock.included_policy_locks[0].source_options).toMatchObject({ git: 'local-policies', path: 'policies/mon.lock.json', revision: first });
    const missingRef = await at('no-such-branch');
    expect(missingRef.json.errors[0].path).toBe('/includes/0/source/ref');
    const missingFile = await call(compose.POST, 'POST', { token: viewer, params: { name: 'webapp' }, body: { parent, includes: [{ name: 'mon', source: { type: 'git', repository: 'local-policies', path: 'nope.json', ref: 'main' } }] } });
    expect(missingFile.json.errors[0].path).toBe('/includes/0/source/path');
    delete process.env.GIT_LOCAL_ROOT;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('detects include cycles through server references', async () => {
    const baseRev = (await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'dev' }, policy: { name: 'webapp' } }, select: { revision: { select: { revisionId: true } } } })).revision.revisionId;
    // The dev webapp revision is now the composed one, which includes base: composing base from it loops back.
    const res = await call(compose.POST, 'POST', { token: viewer, params: { name: 'base' }, body: { parent: { run_list: [] }, includes: [{ name: 'app', source: { type: 'server', policy: 'webapp', revision: baseRev } }] } });
    expect(res.status).toBe(409);
    expect(res.json.conflicts.map((c: { kind: string }) => c.kind)).toContain('include_cycle');
    expect(res.json.conflicts.find((c: { kind: string }) => c.kind === 'include_cycle').message).toBe('Include cycle: base → webapp → base');
  });

  it('refuses a composed lock chef-client would fail on: the preview names the run-list cookbook nothing locks (issue 13)', async () => {
    const before = snapshot({ except: ['ApiToken'] });
    const body = { parent: { run_list: ['webapp', 'haproxy::lb'], cookbook_locks: { webapp: { version: '1.6.0', identifier: 'webapp160' } } }, includes: [], save: true };
    const res = await call(compose.POST, 'POST', { token: dev, params: { name: 'webapp' }, body });
    expect(res.status).toBe(409);
    expect(res.json.conflicts).toEqual([expect.objectContaining({ kind: 'missing_cookbook', cookbook: 'haproxy' })]);
    expect(res.json.errors).toEqual([expect.objectContaining({ path: '/cookbook_locks/haproxy' })]);
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
  });

  it('names the field of a run-list item chef-cli refuses', async () => {
    const res = await call(compose.POST, 'POST', { token: viewer, params: { name: 'webapp' }, body: { parent: { run_list: ['webapp', 'Recipe[webapp]'], cookbook_locks: { webapp: { version: '1.6.0', identifier: 'webapp160' } } }, includes: [] } });
    expect(res.status).toBe(409);
    expect(res.json.errors).toEqual([expect.objectContaining({ path: '/parent/run_list/1' })]);
  });

  it('a compose through the HTTP body keeps number lexemes and named-run-list order: stored bytes hash to chef-cli’s recorded id', async () => {
    // chef-cli 5.6.24's recorded outcome for this case (test/fixtures/chef-cli-corpus/numbers-through-merge.json).
    const entry = parseLossless(fs.readFileSync(path.resolve('test/fixtures/chef-cli-corpus/numbers-through-merge.json'), 'utf8')) as { case: DiffCase; chef: ChefOutcomes };
    const p = entry.case.policies[entry.case.policies.length - 1];
    const parent = parentFromSpec(entry.case, p);
    const chefText = entry.chef[p.dir].lock!;
    const chefId = (parseLossless(chefText) as PolicyLock).revision_id;
    const body = serializeJson({
      parent: { run_list: parent.run_list, named_run_lists: parent.named_run_lists, cookbook_locks: parent.cookbook_locks, default_attributes: parent.default_attributes, override_attributes: parent.override_attributes, solution_dependencies: parent.solution_dependencies },
      includes: p.includes.map((inc) => ({ name: inc.name, source: { type: 'upload', lock: entry.chef[inc.dir].lock, path: inc.path } })),
      save: true,
    });
    expect(body).toContain('1.0e+15'); // the HTTP body carries the lexemes
    const res = await call(compose.POST, 'POST', { token: dev, params: { name: p.name }, body });
    expect(res.status, res.text).toBe(201);
    expect(res.json.saved.revisionId).toBe(chefId);
    const row = await db().policyRevision.findFirstOrThrow({ where: { revisionId: chefId }, select: { document: true, computedRevisionId: true } });
    expect(row.computedRevisionId).toBe(chefId);
    expect(computeRevisionId(row.document)).toBe(chefId);
    expect(row.document).toContain('"negzero": -0.0');
    expect(row.document).toContain('"huge": 1000000000000000000000000000000');
    expect(row.document.indexOf('"10"')).toBeLessThan(row.document.indexOf('"9"'));
    // The response shows the lock as saved: lexemes and key order included.
    expect(res.text).toContain('"negzero":-0.0');
    expect(res.text.indexOf('"10":')).toBeLessThan(res.text.indexOf('"9":'));
  });
});

