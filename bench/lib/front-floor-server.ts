/**
 * The node:http front's floor (issue 49): the console server's shell (lib/ops/server.ts: request id, request
 * context, metrics, the log line) around a handler that does no work, on PORT. What a route served from the front
 * costs before its own work, as app/api/bench-floor is Next's floor.
 */
import { createConsoleServer } from '../../lib/ops/server';

const BODY = JSON.stringify({ status: 'ok' });
const { listen } = createConsoleServer({
  surface: () => 'console',
  routeLabel: () => '/bench-floor',
  handle: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
    res.end(BODY);
  },
});
const port = await listen(Number(process.env.PORT ?? 0), '127.0.0.1');
console.log(`http://127.0.0.1:${port}`);
