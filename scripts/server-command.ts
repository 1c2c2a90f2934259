/**
 * How the console's server process is started: the node options of
 * package.json's `serve` script (V8's heap cap), read from there so that the
 * e2e server and the memory measurement run the server exactly as
 * `npm run serve` and `npm start` do. `${CONSOLE_HEAP_MB:-N}` in the script
 * is the heap cap in MB, N unless CONSOLE_HEAP_MB is set.
 */
import fs from 'node:fs';

export function serverNodeArgs(): string[] {
  const script = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.serve;
  const m = /NODE_ENV=production node ((?:--\S+\s+)*)--import tsx scripts\/serve\.ts$/.exec(script);
  if (!m) throw new Error(`package.json's serve script is not in the form scripts/server-command.ts reads: ${script}`);
  return m[1]
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((a) => a.replace(/\$\{CONSOLE_HEAP_MB:-(\d+)\}/, (_, d: string) => process.env.CONSOLE_HEAP_MB || d));
}
