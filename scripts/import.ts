/**
 * Issue 27: move an organization into the console.
 *
 *   npm run import -- --server URL --org NAME --user NAME --key FILE [options]
 *   npm run import -- --dir PATH [--org NAME] [options]
 *   npm run import -- --verify (--server … | --dir …)
 *
 * Options: --dry-run (print what would change, write nothing), --prefer source|console
 * (what to do when a console object differs from the source and both changed since the last
 * import; without it such conflicts are refused and listed), --rights chef|view|none (issue 42:
 * what imported people may do; default chef), --concurrency N (default 4), --as EMAIL (the
 * console administrator the import acts as; default: the first active administrator),
 * --owner-team NAME (owner of policies created), --timeout MS, --attempts N (per request
 * against a live server), --file-origin URL (issue 41: another origin cookbook file URLs may
 * point at; repeatable), --json (print the report as JSON on stdout).
 * --verify (issue 42): compare the console with the source object by object, write nothing;
 * exit 0 when they agree, 4 listing every difference otherwise.
 *
 * Progress goes to stderr; the report to stdout. Exit 0 when nothing was skipped or
 * refused, 3 when the report lists skipped objects, conflicts or nodes needing attention,
 * 1 on failure.
 */
import fs from 'node:fs';
import { db } from '../lib/db/client';
import { loadAccess } from '../lib/db/queries/access';
import { ChefServerSource } from '../lib/chef/import-source';
import { DirectorySource, runImport, type ImportProgress, type ImportSource, formatReport, formatVerify, verifyImport } from '../lib/services/import';
import type { RightsMode } from '../lib/domain';

const USAGE =
  'usage: npm run import -- (--server URL --org NAME --user NAME --key FILE [--file-origin URL]… | --dir PATH [--org NAME]) [--dry-run | --verify] [--prefer source|console] [--rights chef|view|none] [--concurrency N] [--as EMAIL] [--owner-team NAME] [--timeout MS] [--attempts N] [--json]';

function fail(msg: string, code = 2): never {
  console.error(`import: ${msg}`);
  if (code === 2) console.error(USAGE);
  process.exit(code);
}

const args = process.argv.slice(2);
const flags = new Set(['--dry-run', '--json', '--verify']);
const opt: Record<string, string> = {};
const fileOrigins: string[] = [];
const on = new Set<string>();
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (flags.has(a)) on.add(a);
  else if (a === '--file-origin' && args[i + 1] !== undefined) fileOrigins.push(...args[++i].split(',').filter(Boolean));
  else if (a.startsWith('--') && args[i + 1] !== undefined && !args[i + 1].startsWith('--')) opt[a] = args[++i];
  else fail(`unexpected argument '${a}'`);
}
const known = ['--server', '--org', '--user', '--key', '--dir', '--prefer', '--rights', '--concurrency', '--as', '--owner-team', '--timeout', '--attempts'];
for (const k of Object.keys(opt)) if (!known.includes(k)) fail(`unknown option '${k}'`);
if (!!opt['--server'] === !!opt['--dir']) fail('give either --server (a live Chef server) or --dir (a knife-ec-backup or knife download directory)');
const prefer = opt['--prefer'];
if (prefer !== undefined && prefer !== 'source' && prefer !== 'console') fail("--prefer must be 'source' or 'console'");
const rights = (opt['--rights'] ?? 'chef') as RightsMode;
if (rights !== 'chef' && rights !== 'view' && rights !== 'none') fail("--rights must be 'chef', 'view' or 'none'");
if (on.has('--verify') && on.has('--dry-run')) fail('--verify writes nothing already: give --verify or --dry-run, not both');
if (fileOrigins.length && !opt['--server']) fail('--file-origin goes with --server');
const num = (k: string) => {
  if (opt[k] === undefined) return undefined;
  const v = Number(opt[k]);
  if (!Number.isInteger(v) || v < 1) fail(`${k} must be a positive integer`);
  return v;
};

let source: ImportSource;
try {
  if (opt['--server']) {
    for (const k of ['--org', '--user', '--key']) if (!opt[k]) fail(`${k} is required with --server`);
    let key: string;
    try {
      key = fs.readFileSync(opt['--key'], 'utf8');
    } catch (e) {
      fail(`--key: cannot read ${opt['--key']}: ${(e as Error).message}`);
    }
    source = new ChefServerSource({ server: opt['--server'], org: opt['--org'], user: opt['--user'], privateKey: key, timeoutMs: num('--timeout'), attempts: num('--attempts'), fileOrigins });
  } else source = new DirectorySource(opt['--dir'], opt['--org']);
} catch (e) {
  fail((e as Error).message);
}

const admin = opt['--as']
  ? await db().user.findUnique({ where: { email: opt['--as'].toLowerCase() }, select: { id: true } })
  : await db().user.findFirst({ where: { isAdmin: true, active: true }, orderBy: { createdAt: 'asc' }, select: { id: true } });
const access = admin ? await loadAccess(admin.id) : null;
if (!access?.isAdmin) fail(opt['--as'] ? `${opt['--as']} is not an active administrator of the console` : 'the console has no active administrator (create one first)', 1);

const tty = process.stderr.isTTY;
let lastLine = '';
const mb = (b: number) => (b < 1048576 ? `${(b / 1024).toFixed(1)} kB` : `${(b / 1048576).toFixed(1)} MB`);
function onProgress(p: ImportProgress) {
  const width = 24;
  const filled = p.total ? Math.round((p.done / p.total) * width) : width;
  const line = `${p.phase.padEnd(18)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total}  imported ${p.imported}, unchanged ${p.unchanged}, skipped ${p.skipped}, conflicts ${p.conflicts}, ${mb(p.bytes)}`;
  if (tty) process.stderr.write(`\r${line}`);
  else if (p.phase !== lastLine && (lastLine = p.phase)) process.stderr.write(`${line}\n`);
  else if (p.done === p.total) process.stderr.write(`${line}\n`);
}

if (on.has('--verify')) {
  try {
    const result = await verifyImport(access, source, { concurrency: num('--concurrency') });
    const code = result.differences.length ? 4 : 0;
    process.stdout.write(on.has('--json') ? `${JSON.stringify(result, null, 2)}\n` : formatVerify(result), () => process.exit(code));
  } catch (e) {
    fail((e as Error).message, 1);
  }
} else await runOnce();

async function runOnce() {
  const controller = new AbortController();
  process.once('SIGINT', () => {
    console.error('\nimport: interrupted; what was committed stays, a new run picks up the rest');
    controller.abort();
  });
  try {
    const { runId, report } = await runImport(access!, source, { dryRun: on.has('--dry-run'), prefer: (prefer as 'source' | 'console' | undefined) ?? null, rights, concurrency: num('--concurrency'), ownerTeam: opt['--owner-team'], onProgress, signal: controller.signal });
    if (tty) process.stderr.write('\n');
    // Exit once the report is written: a pipe takes a large report in several writes, and exiting at once cut it short.
    const code = report.skipped.length || report.conflicts.length || report.attention?.length ? 3 : 0;
    process.stdout.write(on.has('--json') ? `${JSON.stringify({ run: runId, ...report }, null, 2)}\n` : formatReport(runId, report), () => process.exit(code));
  } catch (e) {
    fail((e as Error).message, 1);
  }
}
