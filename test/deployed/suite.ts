/**
 * One README deployment, driven as its users drive it (issue 40): the bearer API's reads on every instance; knife
 * and a real chef-client through each instance; one promotion race across the instances; the workers' results (a
 * webhook delivered to a local receiver, a scheduled promotion applied, a gated ring with soak time rolled back
 * when a ring node fails); each demo persona in Chromium on every page, alternating instances (on SQLite admin and
 * viewer only: the PostgreSQL sweep takes every persona, the e2e suite covers the SQLite pages); and no 5xx in any
 * instance's log. Run by `npm run test:deployed` (scripts/test-deployed.ts), which says what could not run.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_CONTRACTS } from '@/lib/api/contracts';
import { run, writeClientRb, writeConfig } from '../chef/tools';
import { DEMO_USERS } from '@/lib/seed/demo-data';
import { everyPersonaEveryPage, launchChromium } from './browser';
import { startDeployment, type Deployment, type DeploymentKind, type Instance } from './deployment';
import { request, type Answer } from './http';
import { consolePages } from './pages';

/** scripts/test-deployed.ts says which tools are missing (and prints that these parts did not run). */
const CHEF = process.env.DEPLOYED_CHEF !== 'missing';
const CHROMIUM = process.env.DEPLOYED_CHROMIUM !== 'missing';
const POLICY = 'deployed-app';

/** Polls `probe` until it returns a value (a hang guard, not a timing assertion: the workers' intervals are short). */
async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, limitMs = 120_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function deployedSuite(kind: DeploymentKind): void {
  let d: Deployment;
  let tokens: { admin: string; dev: string };
  let browser: Browser | undefined;
  const api = (inst: Instance, p: string, o: { method?: string; body?: unknown; token?: string } = {}): Promise<Answer> =>
    request(`${inst.url}/api/v1${p}`, { method: o.method, body: o.body, token: o.token ?? tokens.admin, ca: d.ca });
  const first = () => d.instances[0];
  const last = () => d.instances[d.instances.length - 1];

  async function token(email: string): Promise<string> {
    const r = await d.npm('token:create', [email, `deployed-${email}`]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return r.stdout.trim().split('\n').pop()!;
  }

  /** policy → revision id, of a stage. */
  async function stagePolicies(stage: string): Promise<Record<string, string>> {
    const r = await api(first(), `/policy_groups/${stage}`);
    expect(r.status, r.text).toBe(200);
    return Object.fromEntries(Object.entries(r.json.policies as Record<string, { revision_id: string }>).map(([p, v]) => [p, v.revision_id]));
  }

  /** Policies whose dev revision is not qa's: what a promotion into qa moves. */
  async function promotableIntoQa(): Promise<{ policy: string; from: string; expected: string | null }[]> {
    const [dev, qa] = [await stagePolicies('dev'), await stagePolicies('qa')];
    return Object.keys(dev)
      .filter((p) => p !== POLICY && dev[p] !== qa[p])
      .sort()
      .map((policy) => ({ policy, from: dev[policy], expected: qa[policy] ?? null }));
  }

  beforeAll(async () => {
    d = await startDeployment(kind);
    tokens = { admin: await token('admin@example.com'), dev: await token('dev@example.com') };
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await d?.stop();
  }, 120_000);

  describe(`${kind}: ${kind === 'sqlite' ? 'one instance on a SQLite file' : 'two instances on one PostgreSQL database, the second over HTTPS'}`, () => {
    it('every instance is ready and serves the demo (the README commands: npm run serve, token:create)', async () => {
      for (const inst of d.instances) {
        expect((await request(`${inst.url}/api/health`, { ca: d.ca })).status).toBe(200);
        const board = await api(inst, '/board');
        expect(board.status, `${inst.name}: ${board.text.slice(0, 500)}`).toBe(200);
      }
      if (kind === 'postgres') {
        // The HTTPS instance redirects plain HTTP to itself (lib/ops/tls.ts).
        const plain = await request(last().url.replace('https:', 'http:') + '/api/health');
        expect(plain.status).toBe(301);
      }
    });

    it('webhook delivery, a promotion race across the instances: one wins, the rest 409, one history row; the worker delivers it', async () => {
      const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
      const receiver = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          received.push({ headers: req.headers, body });
          res.end('ok');
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
      try {
        const port = (receiver.address() as { port: number }).port;
        const created = await api(last(), '/webhooks', { method: 'POST', body: { name: 'deployed-receiver', url: `http://127.0.0.1:${port}/hook`, events: ['promotion.applied'], allow_private_targets: true } });
        expect(created.status, created.text).toBe(201);
        const secret: string = created.json.secret;

        const [target] = await promotableIntoQa();
        expect(target, 'a policy whose dev revision qa does not run').toBeTruthy();
        const started = Date.now();
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            api(d.instances[i % d.instances.length], '/policy_groups/qa/promote', { method: 'POST', token: tokens.dev, body: { from: 'dev', policies: [target.policy], expected: { [target.policy]: target.expected } } }),
          ),
        );
        const statuses = answers.map((a) => a.status).sort();
        expect(statuses.filter((s) => s >= 200 && s < 300), answers.map((a) => `${a.status} ${a.text.slice(0, 200)}`).join('\n')).toHaveLength(1);
        expect(statuses.filter((s) => s === 409)).toHaveLength(answers.length - 1);
        const history = await api(first(), `/policy_groups/qa/policies/${target.policy}/history`);
        expect(history.status, history.text).toBe(200);
        // (The rows' fields are camelCase, though the contract's summary spells them snake_case.)
        const rows = (history.json.history as { at: string; toRevisionId?: string; to_revision_id?: string }[]).filter((h) => Date.parse(h.at) >= started - 1000 && (h.toRevisionId ?? h.to_revision_id) === target.from);
        expect(rows, history.text.slice(0, 1000)).toHaveLength(1);
        expect((await stagePolicies('qa'))[target.policy]).toBe(target.from);

        // The webhook worker (WEBHOOK_POLL_MS short) delivers promotion.applied, signed with the subscription's secret.
        const delivery = await until('the promotion.applied delivery', async () => received.find((r) => r.body.includes(target.policy) && r.body.includes('promotion.applied')));
        expect(delivery.headers['x-policy-console-signature']).toBe(`sha256=${createHmac('sha256', secret).update(delivery.body, 'utf8').digest('hex')}`);
      } finally {
        await new Promise((r) => receiver.close(r));
      }
    });

    it('the rollout worker applies a scheduled promotion at its time (scheduled on one instance, seen on the other)', async () => {
      // Into dev, of the revision staging runs (dev@ promotes into dev): a policy whose two revisions differ.
      const [dev, staging] = [await stagePolicies('dev'), await stagePolicies('staging')];
      const policy = Object.keys(staging).sort().find((p) => p !== 'webapp' && dev[p] && staging[p] !== dev[p]);
      expect(policy, 'a policy whose staging revision dev does not run').toBeTruthy();
      const target = { policy: policy!, from: staging[policy!], expected: dev[policy!] };
      // A few seconds ahead (it must be in the future when the request is handled, on a loaded machine too).
      const at = new Date(Date.now() + 4000).toISOString();
      const s = await api(last(), `/policy_groups/dev/policies/${target.policy}/schedule`, { method: 'POST', token: tokens.dev, body: { from: `rev:${target.from}`, when: 'at', at, expected_revision_id: target.expected } });
      expect(s.status, s.text).toBe(201);
      const id: string = s.json.scheduled_promotion?.id ?? s.json.id;
      const applied = await until('the scheduled promotion applied', async () => {
        const list = await api(first(), `/scheduled_promotions?policy=${target.policy}&stage=dev`, { token: tokens.dev });
        expect(list.status, list.text).toBe(200);
        const row = (list.json.scheduled_promotions as { id: string; status: string }[]).find((x) => x.id === id);
        return row?.status === 'applied' ? row : undefined;
      });
      expect(applied.status).toBe('applied');
      expect((await stagePolicies('dev'))[target.policy]).toBe(target.from);
    });

    if (CHEF) {
      describe('the real Chef tools', () => {
        let dir: string;
        let configs: string[];
        let trust: string[];
        const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });
        const write = (rel: string, text: string) => {
          fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
          fs.writeFileSync(path.join(dir, rel), text);
        };
        /** v2 raises on a node whose `deployed.fail` attribute is set. */
        const recipe = (v: string) =>
          `file ::File.join(node['deployed']['dir'], node.name) do\n  content '${v}'\nend\n` +
          (v === 'v1' ? '' : `ruby_block 'check' do\n  block { raise 'this release breaks the node' if node.read('deployed', 'fail') }\nend\n`);
        async function converge(inst: Instance, node: string, fail = false) {
          const home = path.join(dir, node);
          fs.mkdirSync(home, { recursive: true });
          fs.writeFileSync(path.join(home, 'attrs.json'), JSON.stringify({ deployed: { fail } }));
          writeClientRb(home, { serverUrl: `${inst.url}/organizations/console`, org: 'console', nodeName: node, validatorKey: path.join(dir, 'validator.pem'), group: 'dev', policy: POLICY, extra: inst.https ? trust : [] });
          return tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork', '-j', path.join(home, 'attrs.json')], home);
        }

        beforeAll(async () => {
          dir = path.join(d.dir, 'chef');
          fs.mkdirSync(path.join(dir, 'out'), { recursive: true });
          fs.mkdirSync(path.join(dir, 'trusted'), { recursive: true });
          if (d.certFile) fs.copyFileSync(d.certFile, path.join(dir, 'trusted', 'console.crt'));
          trust = ['ssl_verify_mode :verify_peer', `trusted_certs_dir ${JSON.stringify(path.join(dir, 'trusted'))}`];
          // The README's commands for a user's key and the validator key.
          const key = await d.npm('chef:user-key', ['admin', '--out', path.join(dir, 'admin.pem')]);
          expect(key.code, key.stderr).toBe(0);
          const validator = await d.npm('chef:validator', ['--out', path.join(dir, 'validator.pem')]);
          expect(validator.code, validator.stderr).toBe(0);
          configs = d.instances.map((inst) =>
            writeConfig(path.join(dir, '.chef'), `${inst.name}.rb`, { serverUrl: `${inst.url}/organizations/console`, nodeName: 'admin', keyFile: path.join(dir, 'admin.pem'), extra: inst.https ? trust : [] }),
          );
          write('cookbooks/deployed/metadata.rb', "name 'deployed'\nversion '1.0.0'\n");
          write('cookbooks/deployed/recipes/default.rb', recipe('v1'));
          write('Policyfile.rb', `name '${POLICY}'\nrun_list 'deployed::default'\ncookbook 'deployed', path: 'cookbooks/deployed'\ndefault['deployed']['dir'] = ${JSON.stringify(path.join(dir, 'out'))}\n`);
        }, 300_000);

        it('knife reads through each instance; chef push through one; a chef-client run through each converges it', async () => {
          for (const [i, inst] of d.instances.entries()) {
            const nodes = await tool('knife', ['node', 'list', '-c', configs[i]]);
            expect(nodes.code, `${inst.name}: ${nodes.stdout}${nodes.stderr}`).toBe(0);
            expect(nodes.stdout.split('\n').filter(Boolean).length, inst.name).toBeGreaterThan(100);
            const bags = await tool('knife', ['data', 'bag', 'show', 'demo_settings', 'monitoring', '-F', 'json', '-c', configs[i]]);
            expect(bags.code, `${inst.name}: ${bags.stdout}${bags.stderr}`).toBe(0);
          }
          expect((await tool('chef', ['install'])).code).toBe(0);
          const push = await tool('chef', ['push', 'dev', '-c', configs[0]]);
          expect(push.code, push.stdout + push.stderr).toBe(0);
          const v1 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
          for (const [i, inst] of d.instances.entries()) {
            const node = `deployed-node-${i}`;
            const r = await converge(inst, node);
            expect(r.code, `${inst.name}: ${r.stdout.slice(-3000)}${r.stderr.slice(-2000)}`).toBe(0);
            expect(fs.readFileSync(path.join(dir, 'out', node), 'utf8')).toBe('v1');
            // The run was reported (data collector) and is seen on every instance.
            for (const other of d.instances) {
              const runs = await until(`${node}'s run on ${other.name}`, async () => {
                const a = await api(other, `/nodes/${node}/runs`);
                return a.status === 200 && (a.json.runs as { status: string; revision_id: string }[]).find((x) => x.status === 'success' && x.revision_id === v1);
              });
              expect(runs).toBeTruthy();
            }
          }
        });

        it('the rollout worker rolls back a gated ring with soak time when a ring node fails (a real chef-client run)', async () => {
          write('cookbooks/deployed/metadata.rb', "name 'deployed'\nversion '1.1.0'\n");
          write('cookbooks/deployed/recipes/default.rb', recipe('v2'));
          fs.rmSync(path.join(dir, 'Policyfile.lock.json'));
          expect((await tool('chef', ['install'])).code).toBe(0);
          const push = await tool('chef', ['push', 'qa', '-c', configs[configs.length - 1]]);
          expect(push.code, push.stdout + push.stderr).toBe(0);
          const v2 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
          // A node of the stage (it converged v1 through the last instance above), named into the ring.
          const ringNode = `deployed-node-${d.instances.length - 1}`;
          const started = await api(first(), '/rings', { method: 'POST', body: { stage: 'dev', policy: POLICY, revision_id: v2, steps: [50, 100], nodes: [ringNode], gate_on_convergence: true, soak_minutes: 60 } });
          expect(started.status, started.text).toBe(201);
          const id: string = started.json.ring.id;
          const r = await converge(last(), ringNode, true);
          expect(r.code, 'the ring node fails on the ring revision').not.toBe(0);
          expect(fs.readFileSync(path.join(dir, 'out', ringNode), 'utf8')).toBe('v2');
          // Nobody clicks: the rollout worker (ROLLOUT_WORKER_INTERVAL_MS short) sees the failed ring node and rolls back.
          let seen = '';
          const ring = await until('the ring rolled back', async () => {
            const a = await api(first(), `/rings/${id}`);
            expect(a.status, a.text).toBe(200);
            seen = a.text;
            return a.json.ring.status === 'rolled_back' ? a.json.ring : undefined;
          }).catch((e: Error) => {
            throw new Error(`${e.message}; the ring as last seen: ${seen.slice(0, 3000)}`);
          });
          expect(ring.status).toBe('rolled_back');
          expect((await stagePolicies('dev'))[POLICY]).not.toBe(v2);
        });
      });
    }

    it("every /api/v1 read answers the bearer token on every instance", async () => {
      const dev = await stagePolicies('dev');
      const rev = dev.webapp;
      const first200 = async (p: string, key: string) => ((await api(first(), p)).json?.[key] as { id: string }[] | undefined)?.[0]?.id;
      if (!(await first200('/rings', 'rings'))) {
        // Without the Chef tools no ring was started above: one for the reads and pages (webapp's staging revision, ringed into dev).
        const staging = await stagePolicies('staging');
        const r = await api(first(), '/rings', { method: 'POST', body: { stage: 'dev', policy: 'webapp', revision_id: staging.webapp, steps: [50, 100] } });
        expect(r.status, r.text).toBe(201);
      }
      const ids: Record<string, string | undefined> = {
        promotion_requests: await first200('/promotion_requests', 'requests'),
        rings: await first200('/rings', 'rings'),
        webhooks: await first200('/webhooks', 'webhooks'),
      };
      const node = ((await api(first(), '/nodes?group=dev')).json?.nodes as { name: string }[] | undefined)?.[0]?.name;
      const QUERY: Record<string, string> = {
        '/diff': '?policy=webapp&from=qa&to=dev',
        '/policy_groups/{group}/policies/{name}/promote-cookbook/preview': `?from=qa&cookbook=nginx&expected_revision_id=${rev}`,
        '/policies/{name}/artifacts': '?from=qa&to=dev',
      };
      const gets = API_CONTRACTS.filter((c) => c.method === 'GET');
      expect(gets.length).toBeGreaterThan(30);
      const failures: string[] = [];
      for (const inst of d.instances) {
        for (const c of gets) {
          const url =
            c.path
              .replace('{group}', c.path.startsWith('/organizations/') ? 'admins' : 'dev')
              .replace('{name}', c.path.startsWith('/nodes/') ? (node ?? 'none') : 'webapp')
              .replace('{rev}', rev)
              .replace('{org}', 'console')
              .replace('{user}', 'admin')
              .replace('{team}', 'web')
              .replace('{id}', ids[c.path.split('/')[1]] ?? 'none') + (QUERY[c.path] ?? '');
          // A contract with a path parameter this sweep does not know yet says so (add its value above).
          if (url.includes('{')) {
            failures.push(`${inst.name} GET ${c.path}: no value for its path parameter in this test`);
            continue;
          }
          const a = await api(inst, url);
          if (a.status !== 200) failures.push(`${inst.name} GET ${url}: ${a.status} ${a.text.slice(0, 300)}`);
        }
      }
      expect(failures).toEqual([]);
    });

    if (CHROMIUM) {
      // Every persona on PostgreSQL (two instances, one over HTTPS: the sessions cross instances and schemes). On
      // SQLite only admin (the most rights) and viewer (the fewest): the PostgreSQL sweep takes every persona on the
      // same pages, and the e2e suite (playwright.config.ts) drives the pages on SQLite as each role; the five
      // other personas here cost ~60 s of CI time for little either does not cover.
      const personas = kind === 'sqlite' ? DEMO_USERS.filter((u) => u.chefName === 'admin' || u.chefName === 'viewer') : DEMO_USERS;
      it(`${kind === 'sqlite' ? 'admin and viewer sign' : 'each demo persona signs'} in through Chromium and open${kind === 'sqlite' ? '' : 's'} every page of the console, alternating instances`, async () => {
        expect(personas.length).toBe(kind === 'sqlite' ? 2 : DEMO_USERS.length);
        browser = await launchChromium();
        const pages = await consolePages(d.env.DATABASE_URL);
        expect(pages.length).toBeGreaterThan(30);
        const { problems, opened } = await everyPersonaEveryPage(browser, d.instances, pages, personas);
        expect(problems).toEqual([]);
        expect(opened).toBe(pages.length * personas.length);
      });
    }

    it('no instance answered a 5xx (their logs)', () => {
      const errors = d
        .logs()
        .split('\n')
        .filter((l) => /"status":5\d\d|level":"error"|TypeError|ReferenceError/.test(l));
      expect(errors).toEqual([]);
    });
  });
}
