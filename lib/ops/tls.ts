/**
 * HTTPS on the console's own port (TLS_CERT_FILE and TLS_KEY_FILE), as Chef Infra Server serves its API:
 * chef-client and knife configurations name `https://…` URLs, and a fleet moving in keeps them. One listening
 * socket takes both protocols: the first byte of a connection tells a TLS handshake (0x16) from a plain HTTP
 * request, which gets an answer of its own instead of a broken handshake — a redirect to the same URL over
 * HTTPS for GET and HEAD (Chef Server's nginx redirects its plain port the same way), else a 400 saying to use
 * HTTPS. Neither answer names the server software (pedant's header spec checks that nginx's error pages
 * do not).
 */
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';

export interface TlsFiles {
  key: Buffer;
  cert: Buffer;
}

/** TLS_CERT_FILE and TLS_KEY_FILE (PEM; both or neither): the operator's files, read once at start-up. */
export function tlsFromEnv(env: Record<string, string | undefined> = process.env): TlsFiles | null {
  const cert = env.TLS_CERT_FILE;
  const key = env.TLS_KEY_FILE;
  if (!cert && !key) return null;
  if (!cert || !key) throw new Error(`Set both TLS_CERT_FILE and TLS_KEY_FILE to serve HTTPS (only ${cert ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE'} is set).`);
  return { cert: fs.readFileSync(cert), key: fs.readFileSync(key) };
}

/** A Host header fit to build a redirect from (a name or address and an optional port; nothing else). */
const SAFE_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The answer to plain HTTP on the HTTPS port. */
function plainHttpAnswer(req: IncomingMessage, res: ServerResponse): void {
  const host = req.headers.host;
  const headers = { 'content-type': 'application/json', connection: 'close' };
  if ((req.method === 'GET' || req.method === 'HEAD') && host && SAFE_HOST.test(host) && (req.url ?? '/').startsWith('/')) {
    const location = `https://${host}${req.url ?? '/'}`;
    res.writeHead(301, { ...headers, location });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ error: [`This server speaks HTTPS on this port: ${location}`] }));
    return;
  }
  res.writeHead(400, headers);
  res.end(JSON.stringify({ error: ['The plain HTTP request was sent to the HTTPS port: use https://.'] }));
}

/** How long a new connection may stay silent before its first byte (then the protocol servers' own timeouts apply). */
const FIRST_BYTE_TIMEOUT_MS = 30_000;

/**
 * One listening socket for `secure` (HTTPS) and `plain` (plain HTTP answered by `plainHttpAnswer`): each
 * connection is handed to one of them by its first byte. Listen on `listener`; the two servers never listen
 * themselves but track their connections as if they did (closeIdleConnections, closeAllConnections, timeouts).
 */
function dualProtocolListener(secure: https.Server, plain: http.Server = http.createServer(plainHttpAnswer)): { listener: net.Server; plain: http.Server } {
  const listener = net.createServer((socket) => {
    const drop = () => socket.destroy();
    socket.on('error', drop);
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, drop);
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      socket.off('timeout', drop);
      socket.off('error', drop);
      socket.unshift(first);
      (first[0] === 0x16 ? secure : plain).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  });
  // The two servers never listen, but their connection tracking (closeIdleConnections, and the checks of
  // headersTimeout and requestTimeout against slow clients) starts on 'listening' and stops with close().
  listener.on('listening', () => {
    secure.emit('listening');
    plain.emit('listening');
  });
  listener.on('close', () => {
    for (const s of [secure, plain]) s.close(() => undefined);
  });
  return { listener, plain };
}

/** A request handler's server and the socket it listens on: HTTPS and plain HTTP on one port with `tls`, else plain HTTP. */
export interface ServedPort {
  /** The server the requests reach. */
  server: http.Server | https.Server;
  /** What listens (the server itself without `tls`): close it to stop accepting; it reports closed when its connections have ended. */
  listening: net.Server;
  scheme: 'https' | 'http';
  /** Starts listening; resolves to the port. */
  listen(port: number, host: string): Promise<number>;
  closeIdleConnections(): void;
  closeAllConnections(): void;
}

/**
 * Issue 41: the Strict-Transport-Security value every HTTPS response carries (`HSTS_MAX_AGE` seconds, default one
 * year; 0 or less: none). Only on the HTTPS port: browsers ignore it over plain HTTP, and the plain-HTTP answer on
 * that port is a redirect to HTTPS.
 */
export function hstsHeader(env: Record<string, string | undefined> = process.env): string | null {
  const raw = env.HSTS_MAX_AGE;
  const n = raw === undefined || raw.trim() === '' ? 31_536_000 : Number(raw);
  if (!Number.isFinite(n)) throw new Error(`HSTS_MAX_AGE must be a number of seconds, not '${raw}'.`);
  return n > 0 ? `max-age=${Math.floor(n)}` : null;
}

/** The handler with Strict-Transport-Security set on every response before it runs (the handler may still change it). */
function withHsts(handler: http.RequestListener, value: string | null): http.RequestListener {
  if (!value) return handler;
  return (req, res) => {
    res.setHeader('strict-transport-security', value);
    handler(req, res);
  };
}

/** The one way the console's servers (scripts/serve.ts's, the Chef surface's in tests and benchmarks) take a port. */
export function servePort(handler: http.RequestListener, tls?: TlsFiles | null): ServedPort {
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, withHsts(handler, hstsHeader())) : http.createServer(handler);
  // Longer than load balancers' idle timeouts, so a reused connection is never closed under a client.
  server.keepAliveTimeout = 65_000;
  const front = tls ? dualProtocolListener(server as https.Server) : null;
  const listening: net.Server = front ? front.listener : server;
  return {
    server,
    listening,
    scheme: tls ? 'https' : 'http',
    listen: (port, host) =>
      new Promise<number>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => {
          listening.off('error', reject);
          resolve((listening.address() as AddressInfo).port);
        });
      }),
    closeIdleConnections: () => {
      server.closeIdleConnections();
      front?.plain.closeIdleConnections();
    },
    closeAllConnections: () => {
      server.closeAllConnections();
      front?.plain.closeAllConnections();
    },
  };
}
