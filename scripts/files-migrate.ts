/**
 * npm run files:migrate -- --to s3|db [--dry-run]
 *
 * Moves every cookbook file's bytes to one file store (issue 46), verifying
 * each MD5 on the way in and reading it back; the console keeps serving
 * meanwhile. Set FILE_STORE to the target on every instance first (new
 * uploads go there); S3_* name the bucket either way. Resumable: run it again
 * after an interruption. Exit 0 when every file is in the target; 1 when some
 * could not be moved (named) or remain; 2 on a usage error.
 */
import { db } from '../lib/db/client';
import { migrateFiles } from '../lib/services/cookbooks';

const args = process.argv.slice(2);
const usage = 'usage: npm run files:migrate -- --to s3|db [--dry-run]';
const toAt = args.indexOf('--to');
const to = toAt >= 0 ? args[toAt + 1] : args.find((a) => a.startsWith('--to='))?.slice(5);
const unknown = args.filter((a, i) => a !== '--dry-run' && a !== '--to' && !(i === toAt + 1 && toAt >= 0) && !a.startsWith('--to='));
if ((to !== 's3' && to !== 'db') || unknown.length) {
  console.error(unknown.length ? `files:migrate: unknown argument ${unknown[0]}\n${usage}` : `files:migrate: --to must be s3 or db\n${usage}`);
  process.exit(2);
}
const dryRun = args.includes('--dry-run');
if ((process.env.FILE_STORE ?? 'db') !== to && !dryRun) {
  console.warn(`files:migrate: FILE_STORE is '${process.env.FILE_STORE ?? 'db'}', not '${to}': uploads meanwhile go to the other store (run this again after setting FILE_STORE=${to} on every instance).`);
}

try {
  const r = await migrateFiles({ to, dryRun, onProgress: (line) => console.log(line) });
  const mb = (r.bytes / 1024 / 1024).toFixed(1);
  if (dryRun) console.log(`files:migrate (dry run): ${r.moved} files (${mb} MiB) would move to ${to}; ${r.already} are there already. Nothing was changed.`);
  else console.log(`files:migrate: ${r.moved} files (${mb} MiB) moved to ${to}, every MD5 verified; ${r.already} were there already; ${r.swept} leftover copies removed; ${r.failed.length} failed; ${r.remaining} remain in the other store.`);
  for (const f of r.failed) console.error(`  ${f.checksum}: ${f.error}`);
  process.exitCode = dryRun ? 0 : r.failed.length || r.remaining ? 1 : 0;
} catch (e) {
  console.error(`files:migrate: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await db().$disconnect();
}
