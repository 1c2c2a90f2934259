/**
 * The console's server: one node:http server that owns the port. Chef API
 * paths (/organizations/…, /users/…) are served by the framework-free Chef
 * router (machine traffic, the hot path); /api/v1 by the framework-free API
 * router (lib/api/http.ts, issue 49); GET /metrics by the server itself;
 * every other path goes to Next. Every request gets an X-Request-Id, a
 * metrics count and one log line (lib/ops/server.ts).
 *   tsx scripts/serve.ts [--dev]      PORT (3000), HOST (0.0.0.0)
 * With TLS_CERT_FILE and TLS_KEY_FILE it serves HTTPS on that port, and
 * redirects plain HTTP there (lib/ops/tls.ts).
 */
import next from 'next';
import { serveApi } from '../lib/api/http';
import { serveChef } from '../lib/chef/http';
import { isChefPath } from '../lib/chef/router';
import { respondEarly } from '../lib/ops/early-guard';
import { disconnectDb } from '../lib/db/client';
import { log } from '../lib/ops/log';
import { consoleRouteLabeler } from '../lib/ops/routes';
import { createConsoleServer, exitOnSignals } from '../lib/ops/server';
import { onShutdown } from '../lib/ops/shutdown';
import { startBackgroundJobs } from '../lib/services/background';
import { tlsFromEnv } from '../lib/ops/tls';

const dev = process.argv.includes('--dev');
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? '0.0.0.0';
const app = next({ dev, hostname, port });
await app.prepare();
const handle = app.getRequestHandler();

const { listen, scheme, shutdown } = createConsoleServer({
  tls: tlsFromEnv(),
  surface: (pathname) => (isChefPath(pathname) ? 'chef' : 'console'),
  routeLabel: consoleRouteLabeler(process.cwd()),
  handle: async (req, res) => {
    // TRACE and friends, and malformed %-escapes, get a JSON 4xx here: Next cannot build a Request for them.
    if (respondEarly(req, res)) return;
    if (!(await serveChef(req, res)) && !(await serveApi(req, res))) await handle(req, res);
  },
});
// Registered first, so it runs last: the database outlives every other hook.
onShutdown('database', disconnectDb);
const background = startBackgroundJobs(); // webhook outbox worker (issue 15)
onShutdown('webhooks', () => background.stop());
const bound = await listen(port, hostname);
log('info', `Policy Console on ${scheme}://${hostname === '0.0.0.0' ? 'localhost' : hostname}:${bound} (${dev ? 'development' : 'production'})`, { port: bound, pid: process.pid });

// Graceful shutdown: stop accepting, let in-flight requests finish, run the shutdown hooks, exit.
exitOnSignals(shutdown);
