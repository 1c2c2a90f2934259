/**
 * Running Chef Infra Server's own conformance suite (oc-chef-pedant,
 * unmodified) against the console: where it is installed, the spec files the
 * console answers, RSpec's JSON report, and the reviewed list of examples the
 * console fails on purpose (test/chef/pedant-expected-failures).
 *
 * Pedant is installed by the chef-pedant setup script (`.ci/run` runs it), into
 * CHEF_PEDANT_DIR or ~/.cache/chef-pedant; the project never reads the shared
 * folder itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { run } from './tools';

/** The spec files (relative to oc-chef-pedant/spec/api) for every endpoint the console serves. */
export const PEDANT_SPECS = [
  'policies/complete_endpoint_spec.rb',
  'nodes/complete_endpoint_spec.rb',
  'clients/complete_endpoint_spec.rb',
  'keys/client_keys_spec.rb',
  'keys/user_keys_spec.rb',
  'sandboxes/complete_endpoint_spec.rb',
  'cookbook_artifacts/create_spec.rb',
  'cookbook_artifacts/read_spec.rb',
  'cookbook_artifacts/update_spec.rb',
  'cookbook_artifacts/delete_spec.rb',
  'data_bag/complete_endpoint_spec.rb',
  'search/search_spec.rb',
  'search/word_break_spec.rb',
  'header_spec.rb',
  'server_api_version_spec.rb',
] as const;

/** The installed pedant folder (with run.sh and the unpacked suite), or null with the reason. */
export function pedantDir(): { dir: string } | { missing: string } {
  const dir = process.env.CHEF_PEDANT_DIR || path.join(os.homedir(), '.cache/chef-pedant');
  if (!fs.existsSync(path.join(dir, 'run.sh')) || !fs.existsSync(path.join(dir, 'oc-chef-pedant/spec/api'))) {
    return { missing: `oc-chef-pedant is not installed in ${dir} (set CHEF_PEDANT_DIR, or run the setup.sh of the shared chef-pedant folder)` };
  }
  if (spawnSync('sh', ['-c', 'command -v ruby && ruby -e "require %q{rspec/core}; require %q{rest-client}"'], { stdio: 'ignore' }).status !== 0) {
    return { missing: 'ruby with rspec and rest-client is missing (the chef-pedant setup.sh installs them)' };
  }
  return { dir };
}

export interface PedantExample {
  /** `spec/file.rb[1:2:3]`, relative to spec/api: stable for a given pedant tarball. */
  id: string;
  description: string;
  status: 'passed' | 'failed' | 'pending';
  line: number;
  message: string;
}

interface RspecJson {
  examples: { id: string; full_description: string; status: string; line_number: number; exception?: { message: string } }[];
  summary: { example_count: number; failure_count: number; pending_count: number; errors_outside_of_examples_count?: number };
  messages?: string[];
}

/** The examples of RSpec's JSON report, ids relative to spec/api. */
export function parseReport(text: string): { examples: PedantExample[]; errorsOutside: number; messages: string[] } {
  const r = JSON.parse(text) as RspecJson;
  return {
    examples: r.examples.map((e) => ({
      id: e.id.replace(/^.*\/spec\/api\//, ''),
      description: e.full_description,
      status: e.status === 'passed' ? 'passed' : e.status === 'pending' ? 'pending' : 'failed',
      line: e.line_number,
      message: e.exception?.message ?? '',
    })),
    errorsOutside: r.summary.errors_outside_of_examples_count ?? 0,
    messages: r.messages ?? [],
  };
}

/**
 * test/chef/pedant-expected-failures: one example id a line, then ` # ` and
 * the console rule that makes it fail (a line without its rule is an error).
 * An id names an example (`file.rb[1:2:3]`) or a whole context of examples
 * (`file.rb[1:17]` covers `file.rb[1:17:…]`). Blank lines and lines starting
 * with `#` are comments.
 */
export function readExpectedFailures(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [i, line] of fs.readFileSync(file, 'utf8').split('\n').entries()) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const m = /^(\S+\.rb\[[\d:]+\])\s+#\s+(\S.*)$/.exec(t);
    if (!m) throw new Error(`${file}:${i + 1}: expected "<spec.rb[id]> # <console rule>", got: ${t}`);
    out.set(m[1], m[2]);
  }
  return out;
}

/** The entry of the list that covers an example id, if any. */
export function expectedEntry(expected: Map<string, string>, id: string): string | undefined {
  if (expected.has(id)) return id;
  const m = /^(.*\[)([\d:]+)\]$/.exec(id);
  if (!m) return undefined;
  const parts = m[2].split(':');
  for (let n = parts.length - 1; n > 0; n--) {
    const prefix = `${m[1]}${parts.slice(0, n).join(':')}]`;
    if (expected.has(prefix)) return prefix;
  }
  return undefined;
}

/**
 * A stand-in for the Solr server pedant's search specs talk to directly (its
 * `search_server` setting): Chef Infra Server indexes asynchronously, so pedant
 * commits Solr (`POST /update?commit=true`) before it searches, and its "Index
 * Deletion" examples ask Solr itself whether an object is indexed
 * (`GET /select?fq=+X_CHEF_type_CHEF_X:TYPE&q=content:name__=__NAME`). The
 * console has no second store: its index is written in the object's own
 * transaction, so a commit has nothing to do (200), and `/select` answers from
 * the console's index through `count(type, name)`.
 */
export async function startSolrStandIn(count: (type: string, name: string) => Promise<number>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://solr');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    req.resume();
    if (req.method === 'POST' && u.pathname === '/update') return send(200, { responseHeader: { status: 0 } });
    if (req.method === 'GET' && u.pathname === '/select') {
      const type = /X_CHEF_type_CHEF_X:(\S+)(?:\s+\+data_bag:(\S+))?/.exec(u.searchParams.get('fq') ?? '');
      const name = /^content:name__=__(.+)$/.exec(u.searchParams.get('q') ?? '');
      if (!type || !name) return send(400, { error: `the stand-in answers only fq=+X_CHEF_type_CHEF_X:TYPE and q=content:name__=__NAME, got ${u.search}` });
      count(type[2] ?? type[1], name[1]).then(
        (n) => send(200, { response: { numFound: n, start: 0, docs: [] } }),
        (e: unknown) => send(500, { error: String(e) }),
      );
      return;
    }
    send(404, { error: `${req.method} ${u.pathname}: not a Solr request pedant makes` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * Runs one spec file with run.sh; resolves with the report (the console must keep serving meanwhile: never a sync spawn).
 * `solr`: a search server URL (startSolrStandIn): a config file of ours is given to pedant after run.sh's
 * (pedant reads the last `-c`); it loads run.sh's settings and adds `search_server`, with no sleep after a commit
 * (the console's index is never behind the database, so nothing needs time to settle).
 */
export async function runPedant(o: { dir: string; baseUrl: string; org: string; keysDir: string; spec: string; out: string; solr?: string; env?: Record<string, string | undefined> }) {
  const extra: string[] = [];
  if (o.solr) {
    const cfg = `${o.out}.config.rb`;
    fs.writeFileSync(
      cfg,
      [
        '# run.sh\'s settings (it names its config file in PEDANT_CONFIG), then the search server',
        'instance_eval(File.read(ENV.fetch("PEDANT_CONFIG")), ENV.fetch("PEDANT_CONFIG"))',
        `search_server ${JSON.stringify(o.solr)}`,
        'direct_solr_query_sleep_time 0',
        '',
      ].join('\n'),
    );
    extra.push('--', '-c', cfg);
  }
  const r = await run('bash', [path.join(o.dir, 'run.sh'), o.baseUrl, o.org, o.keysDir, o.out, o.spec, ...extra], { env: o.env, timeoutMs: 1_500_000 });
  if (!fs.existsSync(o.out)) throw new Error(`pedant wrote no report for ${o.spec} (exit ${r.code}):\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  return { ...parseReport(fs.readFileSync(o.out, 'utf8')), stdout: r.stdout, stderr: r.stderr, code: r.code };
}
