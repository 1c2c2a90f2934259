/**
 * The console's node:http server shell, shared by scripts/serve.ts and the
 * tests: per request an id (the caller's X-Request-Id when acceptable, else a
 * new one, echoed on the response), a context for the log and the metrics,
 * one log line when it ends; GET /metrics; and a graceful shutdown that lets
 * in-flight requests finish before the shutdown hooks run.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type https from 'node:https';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { ALLOWED_METHODS } from './http-methods';
import { logRequest, log } from './log';
import { metrics } from './metrics';
import { CONTEXT_HEADER, requestsInFlight, requestStore, type RequestInfo } from './request-context';
import { requestIdFrom } from './request-id';
import { runShutdownHooks } from './shutdown';
import { servePort, type TlsFiles } from './tls';

export interface ConsoleServerOptions {
  /** Serves every request but /metrics. */
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
  /** Which surface a path belongs to (for the log). */
  surface(pathname: string): 'chef' | 'console';
  /** The route pattern of a path whose handler noted none (Next's routes, assets). */
  routeLabel(pathname: string): string;
  /** Serve HTTPS with this key and certificate (lib/ops/tls.ts: plain HTTP on the same port is redirected). */
  tls?: TlsFiles | null;
}

export interface ConsoleServer {
  /** The server the requests reach (HTTPS when `tls` was given). Listen with `listen`, not on it. */
  server: http.Server | https.Server;
  /** Starts listening (on the one socket that takes HTTPS and plain HTTP when `tls` was given); resolves to the port. */
  listen(port: number, host: string): Promise<number>;
  /** `https` or `http`. */
  scheme: 'https' | 'http';
  /** Stops accepting, lets in-flight requests finish (at most `timeoutMs`), runs the shutdown hooks; resolves to the exit code (0 clean, 1 cut short). */
  shutdown(timeoutMs?: number): Promise<number>;
}

function pathnameOf(url: string | undefined): string {
  const u = url ?? '/';
  if (u.startsWith('/')) {
    const q = u.indexOf('?');
    return q < 0 ? u : u.slice(0, q);
  }
  try {
    return new URL(u).pathname;
  } catch {
    return '/';
  }
}

const KNOWN_METHODS = new Set<string>(ALLOWED_METHODS);

/** Constant-time comparison of a presented token with the configured one (hashes first, so lengths do not leak either). */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** GET /metrics: Prometheus text; a bearer token is required when METRICS_TOKEN is set. */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { 'content-type': 'application/json', allow: 'GET, HEAD' });
    res.end(JSON.stringify({ error: [`Method ${String(req.method).replace(/[^A-Za-z-]/g, '').slice(0, 20)} is not allowed on /metrics`] }));
    return;
  }
  const token = process.env.METRICS_TOKEN;
  if (token) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !tokenMatches(m[1], token)) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="metrics"' });
      res.end(JSON.stringify({ error: ['Authentication required: send the metrics token as "Authorization: Bearer <METRICS_TOKEN>".'] }));
      return;
    }
  }
  const body = await metrics().registry.render();
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function createConsoleServer(opts: ConsoleServerOptions): ConsoleServer {
  const m = metrics();
  const active = new Set<ServerResponse>();
  let stopping = false;
  m.inFlight.collect(() => active.size);

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const id = requestIdFrom(req.headers['x-request-id']);
    // Downstream (the Chef router, the API routes, audit events) reads the same id.
    req.headers['x-request-id'] = id;
    res.setHeader('x-request-id', id);
    if (stopping) res.setHeader('connection', 'close');
    const pathname = pathnameOf(req.url);
    const isMetrics = pathname === '/metrics';
    const surface = isMetrics ? 'metrics' : opts.surface(pathname);
    const info: RequestInfo = { id };
    // Never a client's value: a fresh key into the requests in flight.
    const key = randomUUID();
    req.headers[CONTEXT_HEADER] = key;
    requestsInFlight().set(key, info);
    active.add(res);

    let ended = false;
    const end = (aborted: boolean) => {
      if (ended) return;
      ended = true;
      active.delete(res);
      requestsInFlight().delete(key);
      const seconds = (performance.now() - started) / 1000;
      const route = isMetrics ? '/metrics' : (info.route ?? opts.routeLabel(pathname));
      const method = KNOWN_METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
      const status = res.statusCode;
      m.httpRequests.inc({ route, method, status: String(status) });
      m.httpDuration.observe({ route, method }, seconds);
      logRequest({ requestId: id, method, route, status, durationMs: seconds * 1000, surface, actorId: info.actorId, via: info.via, aborted });
      // Shutting down: the connection this response used is idle now, close it.
      if (stopping) setImmediate(() => server.closeIdleConnections());
    };
    res.once('finish', () => end(false));
    res.once('close', () => end(!res.writableFinished));

    requestStore().run(info, () => {
      const done = isMetrics ? serveMetrics(req, res) : opts.handle(req, res);
      Promise.resolve(done).catch((e) => {
        log('error', 'request failed', { request_id: id, error: e instanceof Error ? e.message : String(e) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: ['internal service error'] }));
      });
    });
  };
  const port = servePort(handler, opts.tls);
  const { server, listening } = port;

  let shuttingDown: Promise<number> | null = null;
  const shutdown = (timeoutMs = shutdownTimeoutMs()) => {
    shuttingDown ??= (async () => {
      stopping = true;
      const deadline = Date.now() + timeoutMs;
      // Responses still to be written end their connection; idle keep-alive connections close now.
      for (const res of active) if (!res.headersSent) res.setHeader('connection', 'close');
      // The listening socket stops accepting; it reports closed when every connection it took has ended.
      const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
      port.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)))]);
      clearTimeout(timer);
      if (!inTime) {
        log('warn', 'shutdown timeout: closing connections with requests still in flight', { in_flight: active.size, timeout_ms: timeoutMs });
        port.closeAllConnections();
      }
      const failed = await runShutdownHooks(Math.max(1_000, deadline - Date.now()));
      if (failed.length) log('warn', 'shutdown hooks failed or timed out', { hooks: failed });
      return inTime && !failed.length ? 0 : 1;
    })();
    return shuttingDown;
  };
  return { server, shutdown, listen: port.listen, scheme: port.scheme };
}

/** SHUTDOWN_TIMEOUT_MS (default 10 s): how long in-flight requests get to finish. */
export function shutdownTimeoutMs(): number {
  const n = Number(process.env.SHUTDOWN_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? n : 10_000;
}

/** SIGTERM and SIGINT shut the server down gracefully, then exit with the shutdown's code (a second signal changes nothing). */
export function exitOnSignals(shutdown: ConsoleServer['shutdown'], exit: (code: number) => void = (code) => process.exit(code)): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log('info', `${signal}: finishing in-flight requests`, { signal });
    shutdown().then((code) => {
      log('info', 'stopped', { exit_code: code });
      exit(code);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
