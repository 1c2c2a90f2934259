/**
 * Nodes moving in from Chef Infra Server keep `chef_server_url "https://…"`: the console serving HTTPS itself
 * (TLS_CERT_FILE, TLS_KEY_FILE; lib/ops/tls.ts) with a certificate the tools are told to trust
 * (`trusted_certs_dir`, `ssl_verify_mode :verify_peer`, as a fleet trusts its Chef server), real chef-cli pushes a
 * policy and a real chef-client registers, converges it and reports its run, all verified TLS. Without the
 * certificate in the trust store the same tools refuse the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { selfSignedCert } from '../tls-cert';
import { projectScript, run, writeClientRb, writeConfig } from './tools';

const STAGE = 'dev';
const POLICY = 'tls-app';

let chef: ChefHarness;
let dir: string;
let trusted: string[];
let untrusted: string[];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-https-'));
  const cert = selfSignedCert(dir);
  chef = await startChefHarness({ tls: cert });
  fs.mkdirSync(path.join(dir, 'trusted'));
  fs.copyFileSync(cert.certFile, path.join(dir, 'trusted', 'console.crt'));
  fs.mkdirSync(path.join(dir, 'empty-trust'));
  trusted = ['ssl_verify_mode :verify_peer', `trusted_certs_dir ${JSON.stringify(path.join(dir, 'trusted'))}`];
  untrusted = ['ssl_verify_mode :verify_peer', `trusted_certs_dir ${JSON.stringify(path.join(dir, 'empty-trust'))}`];
  const key = path.join(dir, 'dev.pem');
  expect((await projectScript('chef-user-key.ts', ['dev', '--out', key])).code).toBe(0);
  writeConfig(dir, 'config.rb', { serverUrl: chef.orgUrl, nodeName: 'dev', keyFile: key, extra: trusted });
  writeConfig(dir, 'untrusted.rb', { serverUrl: chef.orgUrl, nodeName: 'dev', keyFile: key, extra: untrusted });
  expect((await projectScript('chef-validator.ts', ['--out', path.join(dir, 'validator.pem')])).code).toBe(0);
  fs.mkdirSync(path.join(dir, 'cookbooks/tls/recipes'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'cookbooks/tls/metadata.rb'), "name 'tls'\nversion '1.0.0'\n");
  fs.writeFileSync(path.join(dir, 'cookbooks/tls/recipes/default.rb'), `file ${JSON.stringify(path.join(dir, 'converged'))} do\n  content 'over https'\nend\n`);
  fs.writeFileSync(path.join(dir, 'Policyfile.rb'), `name '${POLICY}'\nrun_list 'tls::default'\ncookbook 'tls', path: 'cookbooks/tls'\n`);
});

afterAll(async () => {
  await chef?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });

describe('Chef tools over verified HTTPS', () => {
  it('refuses the server when its certificate is not trusted', async () => {
    const r = await tool('knife', ['raw', '/policies', '-c', path.join(dir, 'untrusted.rb')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/certificate verify failed|SSL/i);
  });

  it('chef push, then a chef-client run that registers, converges and reports, all over HTTPS', async () => {
    expect((await tool('chef', ['install'])).code).toBe(0);
    const push = await tool('chef', ['push', STAGE, '-c', path.join(dir, 'config.rb')]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    const revision = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;

    const home = path.join(dir, 'node');
    writeClientRb(home, { serverUrl: chef.orgUrl, org: chef.org, nodeName: 'tls-node-1', validatorKey: path.join(dir, 'validator.pem'), group: STAGE, policy: POLICY, extra: trusted });
    const r = await tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork'], home);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'converged'), 'utf8')).toBe('over https');
    expect(await db().node.findUnique({ where: { name: 'tls-node-1' }, select: { revisionApplied: true } })).toEqual({ revisionApplied: revision });
    const run_ = await db().runReport.findFirst({ where: { nodeName: 'tls-node-1', status: { not: 'started' } }, select: { status: true, revisionId: true } });
    expect(run_).toEqual({ status: 'success', revisionId: revision });
  });
});
