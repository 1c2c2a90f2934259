/**
 * Issue 42: npm run export -- --dir DIR [--as EMAIL]
 * Writes the console's organization as a `knife ec backup` tree into DIR (new or empty): users and their keys
 * (key_dump.json, key_table_dump.json), clients, nodes, data bags, policies, policy groups, cookbook artifacts
 * with their files, groups, containers and ACLs. Read it back with `npm run import -- --dir DIR`, restore it
 * into a Chef server with `knife upload`, check a console against it with `npm run import -- --verify --dir DIR`.
 * Exit 0, or 1 with the reason.
 */
import { db } from '../lib/db/client';
import { loadAccess } from '../lib/db/queries/access';
import { exportOrganization } from '../lib/services/import';

const USAGE = 'usage: npm run export -- --dir DIR [--as EMAIL]';
const args = process.argv.slice(2);
const opt: Record<string, string> = {};
for (let i = 0; i < args.length; i++) {
  if ((args[i] === '--dir' || args[i] === '--as') && args[i + 1] !== undefined) opt[args[i]] = args[++i];
  else {
    console.error(`export: unexpected argument '${args[i]}'\n${USAGE}`);
    process.exit(2);
  }
}
if (!opt['--dir']) {
  console.error(`export: --dir is required\n${USAGE}`);
  process.exit(2);
}
const admin = opt['--as']
  ? await db().user.findUnique({ where: { email: opt['--as'].toLowerCase() }, select: { id: true } })
  : await db().user.findFirst({ where: { isAdmin: true, active: true }, orderBy: { createdAt: 'asc' }, select: { id: true } });
const access = admin ? await loadAccess(admin.id) : null;
if (!access?.isAdmin) {
  console.error(`export: ${opt['--as'] ? `${opt['--as']} is not an active administrator of the console` : 'the console has no active administrator (npm run admin:create)'}`);
  process.exit(1);
}
try {
  const r = await exportOrganization(access, opt['--dir'], { onProgress: (what, n) => process.stderr.isTTY && process.stderr.write(`\r${what}: ${n}   `) });
  if (process.stderr.isTTY) process.stderr.write('\n');
  console.log(`Exported organization ${r.organization} to ${r.dir} (${Object.entries(r.counts).map(([k, v]) => `${v} ${k}`).join(', ') || 'nothing'}; ${r.bytes} bytes), laid out as knife ec backup writes it.`);
  await db().$disconnect();
} catch (e) {
  console.error(`export: ${(e as Error).message}`);
  process.exit(1);
}
