/**
 * Issue 46 with the real tools: FILE_STORE=s3 against an S3-compatible server started here (s3rver). `chef push`
 * uploads a cookbook with a file into the bucket (the database holds no file bytes); chef-client converges it with
 * the console streaming the files, then, with S3_DIRECT_DOWNLOADS=true, a second node converges reading them from
 * the bucket through pre-signed URLs (the console reads none).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { metrics } from '@/lib/ops/metrics';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { startS3Server, type S3Server } from '../s3-server';
import { projectScript, run, writeClientRb, writeConfig } from './tools';

let chef: ChefHarness;
let s3: S3Server;
let dir: string;
let config: string;
const PAYLOAD = `payload ${Date.now()}\n`.repeat(2000);

function write(rel: string, text: string) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, s3.env({ FILE_STORE: 's3' }));
  chef = await startChefHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-s3-'));
  write('cookbooks/s3app/metadata.rb', "name 's3app'\nversion '1.0.0'\n");
  write('cookbooks/s3app/files/default/payload.txt', PAYLOAD);
  write('cookbooks/s3app/recipes/default.rb', "cookbook_file ::File.join(node['s3app']['dir'], \"#{Chef::Config[:node_name]}.txt\") do\n  source 'payload.txt'\nend\n");
  write('Policyfile.rb', `name 's3-app'\nrun_list 's3app::default'\ncookbook 's3app', path: 'cookbooks/s3app'\ndefault['s3app']['dir'] = ${JSON.stringify(path.join(dir, 'out'))}\n`);
  fs.mkdirSync(path.join(dir, 'out'));
  const key = path.join(dir, 'dev.pem');
  expect((await projectScript('chef-user-key.ts', ['dev', '--out', key])).code).toBe(0);
  config = writeConfig(path.join(dir, '.chef'), 'config.rb', { serverUrl: chef.orgUrl, nodeName: 'dev', keyFile: key });
  expect((await projectScript('chef-validator.ts', ['--out', path.join(dir, 'validator.pem')])).code).toBe(0);
});

afterAll(async () => {
  await chef?.close();
  await s3?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });
const s3Gets = () => metrics().fileStoreOps.get({ store: 's3', operation: 'get', result: 'ok' });

async function converge(nodeName: string) {
  const home = path.join(dir, nodeName);
  writeClientRb(home, { serverUrl: chef.orgUrl, org: chef.org, nodeName, validatorKey: path.join(dir, 'validator.pem'), group: 'dev', policy: 's3-app' });
  return tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork'], home);
}

describe('FILE_STORE=s3 with the real tools', () => {
  it('chef push uploads the cookbook files into the bucket; the database holds no file bytes', async () => {
    expect((await tool('chef', ['install'])).code).toBe(0);
    const push = await tool('chef', ['push', 'dev', '-c', config]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    expect(push.stdout).toContain('Uploaded s3app 1.0.0');
    expect(await db().cookbookFile.count()).toBe(0);
    const md5 = (await import('node:crypto')).createHash('md5').update(PAYLOAD).digest('hex');
    expect(await db().storedFile.findUnique({ where: { checksum: md5 }, select: { store: true, state: true } })).toEqual({ store: 's3', state: 'stored' });
    expect(fs.readFileSync(path.join(s3.dir, s3.bucket, `${md5}._S3rver_object`), 'utf8')).toBe(PAYLOAD);
  });

  it('chef-client converges with the console streaming the files from the bucket', async () => {
    const before = s3Gets();
    const r = await converge('s3-node-streamed');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'out', 's3-node-streamed.txt'), 'utf8')).toBe(PAYLOAD);
    expect(s3Gets()).toBeGreaterThan(before);
  });

  it('S3_DIRECT_DOWNLOADS=true: chef-client converges reading the files from the bucket by pre-signed URLs', async () => {
    process.env.S3_DIRECT_DOWNLOADS = 'true';
    try {
      const before = s3Gets();
      const r = await converge('s3-node-direct');
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(fs.readFileSync(path.join(dir, 'out', 's3-node-direct.txt'), 'utf8')).toBe(PAYLOAD);
      // Every file came from the bucket itself: the console read none.
      expect(s3Gets()).toBe(before);
    } finally {
      delete process.env.S3_DIRECT_DOWNLOADS;
    }
  });
});
