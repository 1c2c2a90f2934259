/**
 * Issue 40's ring item and issue 43's first high with real chef-client 18, on SQLite and on PostgreSQL: a
 * gated canary ring WITHOUT a soak time, one ring node failing on the ring's revision, is rolled back as
 * the failed run is reported — nobody clicks and no rollout worker runs in this process. The failure stays
 * a fact about the stage (a verdict with the node, the resource and the cookbook): the failed node
 * converges the stage's revision again on its next run, and promoting the ring's revision into the stage
 * again is refused without a manager's written override.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, disconnectDb } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { databaseProvider } from '@/lib/db/url';
import { inRing, ringSeed } from '@/lib/domain/rings';
const { POST: startRing } = apiRoutes('/api/v1/rings');
const { GET: getRing } = apiRoutes('/api/v1/rings/[id]');
const { POST: promote } = apiRoutes('/api/v1/policy_groups/[group]/promote');
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { createDatabase, startPgServer, type PgServer } from '../pg-server';
import { createApiToken } from '@/lib/services/users';
import { call } from '../helpers';
import { projectScript, run, writeClientRb, writeConfig } from './tools';
import { apiRoutes } from '@/test/helpers';

const RECIPE_V1 = "file ::File.join(node['canary']['dir'], node.name) do\n  content 'v1'\nend\n";
const RECIPE_V2 = "file ::File.join(node['canary']['dir'], node.name) do\n  content 'v2'\nend\nruby_block 'check release' do\n  block { raise 'the canary breaks this node' if node.read('canary', 'fail') }\nend\n";

/** A fresh API token (not test/helpers' cached one: each scenario has its own database). */
const tokenFor = async (email: string) => (await createApiToken(null, { userEmail: email, name: `canary-${email}-${Date.now()}` })).token;

/** One database's run of the scenario (its own policy and node names, so nothing of one run meets the other). */
function scenario(label: 'SQLite' | 'PostgreSQL', setup: () => Promise<() => Promise<void>>) {
  describe(`a gated ring without soak, one ring node failing, on ${label}`, () => {
    const policy = `canary-${label === 'SQLite' ? 'sqlite' : 'pg'}`;
    const seed = ringSeed('dev', policy);
    const candidates = Array.from({ length: 64 }, (_, i) => `${policy}-node-${i}`);
    const [ok, broken] = candidates.filter((n) => inRing({ seed, percent: 50 }, n));
    const [outside] = candidates.filter((n) => !inRing({ seed, percent: 50 }, n));
    let teardown: () => Promise<void>;
    let chef: ChefHarness;
    let dir: string;
    let config: string;
    let v1: string;
    let v2: string;
    let ringId: string;

    const write = (rel: string, text: string) => {
      const p = path.join(dir, rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
    };
    const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });
    const converge = async (node: string, fail = false) => {
      const home = path.join(dir, node);
      fs.mkdirSync(home, { recursive: true });
      fs.writeFileSync(path.join(home, 'attrs.json'), JSON.stringify({ canary: { fail } }));
      writeClientRb(home, { serverUrl: chef.orgUrl, org: chef.org, nodeName: node, validatorKey: path.join(dir, 'validator.pem'), group: 'dev', policy });
      return tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork', '-j', path.join(home, 'attrs.json')], home);
    };
    const lock = () => JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id as string;

    beforeAll(async () => {
      teardown = await setup();
      chef = await startChefHarness();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-canary-'));
      write('cookbooks/canary/metadata.rb', "name 'canary'\nversion '1.0.0'\n");
      write('cookbooks/canary/recipes/default.rb', RECIPE_V1);
      write('Policyfile.rb', `name '${policy}'\nrun_list 'canary::default'\ncookbook 'canary', path: 'cookbooks/canary'\ndefault['canary']['dir'] = ${JSON.stringify(path.join(dir, 'out'))}\n`);
      fs.mkdirSync(path.join(dir, 'out'));
      const key = path.join(dir, 'dev.pem');
      expect((await projectScript('chef-user-key.ts', ['dev', '--out', key])).code).toBe(0);
      config = writeConfig(path.join(dir, '.chef'), 'config.rb', { serverUrl: chef.orgUrl, nodeName: 'dev', keyFile: key });
      expect((await projectScript('chef-validator.ts', ['--out', path.join(dir, 'validator.pem')])).code).toBe(0);
    });

    afterAll(async () => {
      await chef?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      await teardown?.();
    });

    it('three nodes converge v1 in dev; v2 is pushed elsewhere', async () => {
      expect(databaseProvider()).toBe(label === 'SQLite' ? 'sqlite' : 'postgresql');
      expect((await tool('chef', ['install'])).code).toBe(0);
      const push = await tool('chef', ['push', 'dev', '-c', config]);
      expect(push.code, push.stdout + push.stderr).toBe(0);
      v1 = lock();
      const runs = await Promise.all([ok, broken, outside].map((n) => converge(n)));
      for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
      write('cookbooks/canary/metadata.rb', "name 'canary'\nversion '1.1.0'\n");
      write('cookbooks/canary/recipes/default.rb', RECIPE_V2);
      fs.rmSync(path.join(dir, 'Policyfile.lock.json'));
      expect((await tool('chef', ['install'])).code).toBe(0);
      const push2 = await tool('chef', ['push', 'qa', '-c', config]);
      expect(push2.code, push2.stdout + push2.stderr).toBe(0);
      v2 = lock();
      expect(v2).not.toBe(v1);
    });

    it('the ring (50%, gated on convergence, no soak time) serves v2 to its two nodes; one fails on it and the ring is rolled back as that run is reported', async () => {
      const admin = await tokenFor('admin@example.com');
      const res = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy, revision_id: v2, steps: [50, 100], gate_on_convergence: true } });
      expect(res.status, res.text).toBe(201);
      ringId = res.json.ring.id;
      expect(res.json.ring).toMatchObject({ status: 'active', soak_minutes: null, gate_on_convergence: true });
      const good = await converge(ok);
      expect(good.code, good.stdout + good.stderr).toBe(0);
      expect(good.stdout).toContain(`at revision '${v2}'`);
      const bad = await converge(broken, true);
      expect(bad.code).not.toBe(0);
      // chef-client's report was answered after the ring was judged: rolled back, with nobody clicking.
      const ring = (await call(getRing, 'GET', { token: admin, params: { id: ringId } })).json.ring;
      expect(ring.status).toBe('rolled_back');
      expect(ring.rollback_on_failure).toBe(true);
      expect(ring.end_reason).toBe(`automatic: 1 of 2 ring nodes failed on revision ${v2.slice(0, 10)} (ruby_block[check release])`);
      expect(ring.health).toMatchObject({ ring_nodes: 2, converged: 1, failed: 1 });
      expect(ring.verdict).toMatchObject({ stage: 'dev', source: 'ring', nodes: 2, failed_nodes: 1, failed_resource: 'ruby_block[check release]', failed_cookbook: 'canary', failed_node_names: [broken] });
    });

    it('the failed node converges the stage’s revision on its next run; the revision goes back into dev only with a manager’s override', async () => {
      const again = await converge(broken, true);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stdout).toContain(`at revision '${v1}'`);
      const refused = await call(promote, 'POST', { token: await tokenFor('dev@example.com'), params: { group: 'dev' }, body: { from: 'qa', policies: [policy], expected: { [policy]: v1 } } });
      expect(refused.status, refused.text).toBe(409);
      expect(refused.json.error[0]).toMatch(new RegExp(`failed in a canary ring in dev on .+: 1 of 2 nodes, ruby_block\\[check release\\] \\(cookbook canary\\)`));
      const overridden = await call(promote, 'POST', { token: await tokenFor('admin@example.com'), params: { group: 'dev' }, body: { from: 'qa', policies: [policy], expected: { [policy]: v1 }, verdict_override_reason: 'the broken node was rebuilt' } });
      expect(overridden.status, overridden.text).toBe(200);
      expect(await db().stageVerdict.findFirstOrThrow({ where: { ringId }, select: { overriddenByEmail: true, overrideReason: true } })).toEqual({ overriddenByEmail: 'admin@example.com', overrideReason: 'the broken node was rebuilt' });
    });
  });
}

// SQLite: the file's own database (test/setup-integration.ts).
scenario('SQLite', async () => async () => undefined);

// PostgreSQL: a throwaway server and a migrated database of its own; the process-wide client follows DATABASE_URL.
scenario('PostgreSQL', async () => {
  const sqliteUrl = process.env.DATABASE_URL;
  const server: PgServer = await startPgServer();
  const url = await createDatabase(server, 'canary');
  await applyMigrations(url);
  await disconnectDb();
  process.env.DATABASE_URL = url;
  return async () => {
    await disconnectDb();
    process.env.DATABASE_URL = sqliteUrl;
    await server.stop();
  };
});
