/** Running the real Chef tools (chef-cli, knife, chef-client) from tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with a time limit; never throws on a non-zero exit (the test asserts on it). */
export function run(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number; input?: string } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** A knife/chef-cli config.rb for one user of the console. */
export function writeConfig(dir: string, file: string, o: { serverUrl: string; nodeName: string; keyFile: string; protocol?: '1.0' | '1.1' | '1.3'; extra?: string[] }): string {
  fs.mkdirSync(dir, { recursive: true });
  const p = path.join(dir, file);
  fs.writeFileSync(
    p,
    [
      `chef_server_url ${JSON.stringify(o.serverUrl)}`,
      `node_name ${JSON.stringify(o.nodeName)}`,
      `client_key ${JSON.stringify(o.keyFile)}`,
      `authentication_protocol_version ${JSON.stringify(o.protocol ?? '1.1')}`,
      `cache_path ${JSON.stringify(path.join(dir, 'cache'))}`,
      ...(o.extra ?? []),
      '',
    ].join('\n'),
  );
  return p;
}

/** Runs `npx tsx scripts/<script>` against the test's database (what a person runs as `npm run chef:…`). */
export async function projectScript(script: string, args: string[]): Promise<RunResult> {
  return run('npx', ['tsx', `scripts/${script}`, ...args], { cwd: process.cwd(), env: { DATABASE_URL: process.env.DATABASE_URL } });
}

/**
 * A policy-mode chef-client client.rb for one node (registers through the validator key), written into `home`; returns its path.
 * `validatorName`: another validator than the organization's (issue 41: a stage validator). `group`/`policy` null: not
 * in client.rb (chef-client then takes them from `-j` attributes, or from the node object, as after a move).
 */
export function writeClientRb(home: string, o: { serverUrl: string; org: string; nodeName: string; validatorKey: string; validatorName?: string; group: string | null; policy: string | null; extra?: string[] }): string {
  fs.mkdirSync(home, { recursive: true });
  const p = path.join(home, 'client.rb');
  fs.writeFileSync(
    p,
    [
      `chef_server_url ${JSON.stringify(o.serverUrl)}`,
      `node_name ${JSON.stringify(o.nodeName)}`,
      `client_key ${JSON.stringify(path.join(home, 'client.pem'))}`,
      `validation_client_name ${JSON.stringify(o.validatorName ?? `${o.org}-validator`)}`,
      `validation_key ${JSON.stringify(o.validatorKey)}`,
      ...(o.extra ?? []),
      'use_policyfile true',
      ...(o.group === null ? [] : [`policy_group ${JSON.stringify(o.group)}`]),
      ...(o.policy === null ? [] : [`policy_name ${JSON.stringify(o.policy)}`]),
      `file_cache_path ${JSON.stringify(path.join(home, 'cache'))}`,
      `file_backup_path ${JSON.stringify(path.join(home, 'backup'))}`,
      'minimal_ohai true',
      '',
    ].join('\n'),
  );
  return p;
}

export interface ChefZero {
  url: string;
  child: ChildProcess;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * chef-zero (Chef's own in-memory server) on a free loopback port, resolved once it listens; kill `child` when done.
 * `--enterprise` runs it as Chef Infra Server is organized (organizations, groups, ACLs).
 */
export async function startChefZero(args: string[] = []): Promise<ChefZero> {
  const port = await freePort();
  const child = spawn('chef-zero', ['--host', '127.0.0.1', '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      if (/is listening at http/.test(out)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`chef-zero exited (${code}): ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}
