/** chef-zero (Chef's own in-memory server, from the toolchain) on a port the OS chose, for tests that need a Chef server that is not the console. */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts chef-zero (single org, URLs without /organizations) and resolves once it says it listens. */
export async function startChefZero(): Promise<{ url: string; child: ChildProcess; stop(): void }> {
  const port = await freePort();
  const child = spawn('chef-zero', ['--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      if (/is listening at http/.test(out)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`chef-zero exited (${code}): ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, stop: () => void child.kill('SIGTERM') };
}
