/** The e2e server: a fresh database file, migrated and seeded, then the console's server (scripts/serve.ts) on the production build. */
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { databaseFile } from '../lib/db/url';
import { serverNodeArgs } from './server-command';

const file = databaseFile();
for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
const run = (cmd: string, args: string[]) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env: process.env });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`))));
  });
await run('npx', ['tsx', 'scripts/prepare.ts']);
// As `npm run serve` starts it (its heap cap included).
const server = spawn(process.execPath, [...serverNodeArgs(), '--import', 'tsx', 'scripts/serve.ts'], { stdio: 'inherit', env: { ...process.env, PORT: process.env.PORT ?? '0', HOST: '127.0.0.1', NODE_ENV: 'production' } });
const stop = () => server.kill('SIGTERM');
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.on('exit', (code) => process.exit(code ?? 0));
