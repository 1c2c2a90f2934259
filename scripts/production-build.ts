/**
 * The production build (`.next`) the tests that start the console as the README does (`npm run serve`) need:
 * test:deployed, and test:chef's two-instance automatic promotion (test/chef/auto-promote.chef.test.ts). Reused
 * when `.next` holds a build newer than every source file (as `npm test` leaves it after test:e2e's `next build`);
 * otherwise built with `next build`, as `npm start` does.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The newest modification time under the sources a build is made from (tests aside). */
function newestSource(): number {
  let newest = 0;
  const visit = (p: string) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p)) if (e !== 'node_modules' && !e.startsWith('.')) visit(path.join(p, e));
    } else if (!/\.test\.tsx?$/.test(p)) newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['app', 'components', 'lib', 'public', 'proxy.ts', 'next.config.mjs', 'postcss.config.mjs', 'tsconfig.json', 'package-lock.json']) visit(path.join(ROOT, p));
  return newest;
}

/** Makes sure `.next` holds a current production build (building it when not); exits the process when the build fails. */
export function ensureProductionBuild(label: string): void {
  const built = fs.statSync(path.join(ROOT, '.next', 'BUILD_ID'), { throwIfNoEntry: false });
  if (built && built.mtimeMs >= newestSource()) {
    console.log(`${label}: using the production build in .next (newer than every source file)`);
    return;
  }
  console.log(`${label}: ${built ? 'the build in .next is older than the sources' : 'no production build in .next'}: building (next build, as npm start does)`);
  const b = spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
