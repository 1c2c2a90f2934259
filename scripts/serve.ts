/**
 * The console's server: one node:http server that owns the port. Chef API
 * paths (/organizations/…, /users/…) are served by the framework-free Chef
 * router (machine traffic, the hot path); every other path goes to Next.
 *   tsx scripts/serve.ts [--dev]      PORT (3000), HOST (0.0.0.0)
 */
import http from 'node:http';
import next from 'next';
import { serveChef } from '../lib/chef/http';
import { respondEarly } from '../lib/api/early-guard';
import { startBackgroundJobs } from '../lib/services/background';

const dev = process.argv.includes('--dev');
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? '0.0.0.0';
const app = next({ dev, hostname, port });
await app.prepare();
const handle = app.getRequestHandler();

const server = http.createServer((req, res) => {
  // TRACE and friends, and malformed %-escapes, get a JSON 4xx here: Next cannot build a Request for them.
  if (respondEarly(req, res)) return;
  serveChef(req, res)
    .then((handled) => (handled ? undefined : handle(req, res)))
    .catch((e) => {
      console.error('[server] request failed', e);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: ['internal service error'] }));
    });
});
// Longer than load balancers' idle timeouts, so a reused connection is never closed under a client.
server.keepAliveTimeout = 65_000;
startBackgroundJobs(); // webhook outbox worker (issue 15)
server.listen(port, hostname, () => console.log(`[server] Policy Console on http://${hostname === '0.0.0.0' ? 'localhost' : hostname}:${port} (${dev ? 'development' : 'production'})`));

// Graceful shutdown: stop accepting, let in-flight requests finish, then exit.
let stopping = false;
function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`[server] ${signal}: finishing in-flight requests`);
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 10_000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
