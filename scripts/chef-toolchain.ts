/**
 * Where the real Chef tools (chef-cli, knife, chef-client) are: on PATH, or in the toolchain the shared
 * chef-toolchain setup script installs (~/.cache/chef-toolchain, or CHEF_TOOLCHAIN_DIR), whose env.sh puts
 * them on PATH. Used by `npm run test:chef` and `npm run test:deployed`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHEF_TOOLS = ['chef', 'knife', 'chef-client'] as const;

function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { env, stdio: 'ignore' }).status === 0;
}

/** The environment to run the Chef tools with, and which of them are still missing there. */
export function chefToolchainEnv(base: NodeJS.ProcessEnv = process.env): { env: NodeJS.ProcessEnv; missing: string[] } {
  const env: NodeJS.ProcessEnv = { ...base };
  if (!CHEF_TOOLS.every((t) => onPath(t, env))) {
    const dir = base.CHEF_TOOLCHAIN_DIR ?? path.join(os.homedir(), '.cache/chef-toolchain');
    const envSh = path.join(dir, 'env.sh');
    if (fs.existsSync(envSh)) {
      const out = spawnSync('sh', ['-c', `. "${envSh}" && env -0`], { encoding: 'utf8' });
      for (const kv of out.stdout.split('\0')) {
        const i = kv.indexOf('=');
        if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
      }
    }
  }
  return { env, missing: CHEF_TOOLS.filter((t) => !onPath(t, env)) };
}
