/**
 * Issue 42: the first administrator of a fresh console (or a break-glass one).
 *
 *   npm run admin:create -- --email E [--name N] [--password-file FILE] [--force]
 *
 * The password comes from a prompt (typed twice, not echoed) or from the first line of --password-file; never
 * from an argument (a command line is visible to every user of the host and kept in shell histories).
 * Refused (exit 1) while an active administrator exists, unless --force: then another administrator is made,
 * or the account with that e-mail becomes an administrator again with the new password (its sessions end).
 * Applies pending migrations first, so it works on a database the server has not started on yet.
 */
import fs from 'node:fs';
import { applyMigrations } from '../lib/db/migrate';
import { db } from '../lib/db/client';
import { redactedUrl } from '../lib/db/url';
import { isAppError } from '../lib/errors';
import { makeAdministrator } from '../lib/services/users';

const USAGE = 'usage: npm run admin:create -- --email E [--name N] [--password-file FILE] [--force]';

function fail(msg: string, code = 2): never {
  console.error(`admin:create: ${msg}`);
  if (code === 2) console.error(USAGE);
  process.exit(code);
}

const args = process.argv.slice(2);
const opt: Record<string, string> = {};
let force = false;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--force') force = true;
  else if (a === '--password' || a.startsWith('--password=')) fail('a password is never taken as an argument (it would show in the process list and your shell history): type it at the prompt, or give --password-file FILE');
  else if (['--email', '--name', '--password-file'].includes(a) && args[i + 1] !== undefined) opt[a] = args[++i];
  else fail(`unexpected argument '${a}'`);
}
if (!opt['--email']) fail('--email is required');

/** One line typed at the terminal without echo. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    if (!stdin.isTTY) return reject(new Error('no terminal to ask for the password on: give --password-file FILE'));
    process.stderr.write(question);
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off('data', onData);
          process.stderr.write('\n');
          return resolve(value);
        }
        if (ch === '\u0003') {
          stdin.setRawMode(false);
          process.stderr.write('\n');
          process.exit(130);
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function password(): Promise<string> {
  const file = opt['--password-file'];
  if (file) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      fail(`--password-file: cannot read ${file}: ${(e as Error).message}`, 1);
    }
    return text.split(/\r?\n/)[0];
  }
  const first = await promptHidden(`Password for ${opt['--email']} (at least 10 characters): `);
  const again = await promptHidden('The same password again: ');
  if (first !== again) fail('the two passwords differ: nothing was changed', 1);
  return first;
}

try {
  await applyMigrations();
  const pw = await password().catch((e: Error) => fail(e.message, 1));
  const r = await makeAdministrator({ email: opt['--email'], name: opt['--name'], password: pw }, { origin: 'admin-create', force });
  console.log(
    r.existing
      ? `${r.email} is an administrator again, with the new password (its other sessions ended), in ${redactedUrl()}.`
      : `Created administrator ${r.email}${r.chefName ? ` (Chef user name ${r.chefName})` : ''} in ${redactedUrl()}. Sign in to the console with this e-mail and password.`,
  );
} catch (e) {
  fail(isAppError(e) ? e.message : ((e as Error)?.message ?? String(e)), 1);
} finally {
  await db().$disconnect();
}
