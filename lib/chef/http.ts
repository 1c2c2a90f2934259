/**
 * The Chef surface over plain node:http: what the console's server runs in
 * front of Next (see scripts/serve.ts), and what tests and benchmarks start on
 * their own. The body is handed to the router unread: it reads it after the route match with the row's limit
 * (lib/ops/body.ts; ChefRoute.bodyLimit: Chef's JSON limit CHEF_MAX_REQUEST_SIZE by default, MAX_BODY_BYTES for
 * cookbook files, DATA_COLLECTOR_MAX_BYTES for run reports).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type https from 'node:https';
import { servePort, type TlsFiles } from '@/lib/ops/tls';
import { publicUrl } from '@/lib/config';
import { handleChef, isChefPath } from './router';
import { requestIdFrom } from '@/lib/ops/request-id';

/** The request's id: the front's (lib/ops/server.ts), or by the same rule when this server runs alone. */
const requestIdOf = (req: IncomingMessage) => requestIdFrom(req.headers['x-request-id']);

/** The base of absolute URIs in answers: PUBLIC_URL when set, else the Host the client used. */
function baseUrl(req: IncomingMessage): string {
  const configured = publicUrl();
  if (configured) return configured;
  const proto = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  return `${proto}://${req.headers.host ?? 'localhost'}`;
}

/** Serves a Chef request when the path is one of ours; false otherwise (the caller hands it on). */
export async function serveChef(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  if (!isChefPath(rawPath)) return false;
  const out = await handleChef({
    method: (req.method ?? 'GET').toUpperCase(),
    rawPath,
    query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
    header: (name) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    source: req,
    baseUrl: baseUrl(req),
  });
  // What was not read of the body (an answer before the read: 404, 405, 401, or a handler's refusal of a streamed
  // upload) is drained, so the connection can be reused.
  if (!req.readableEnded) req.resume();
  if (out.stream) {
    res.writeHead(out.status, out.headers);
    await pipeline(out.stream, res).catch(() => res.destroy());
    return true;
  }
  res.writeHead(out.status, out.headers);
  res.end(out.body);
  return true;
}

/**
 * A server for the Chef surface alone (tests, benchmarks): other paths get a JSON 404. With `tls`, HTTPS on
 * the port and plain HTTP redirected, as scripts/serve.ts serves with TLS_CERT_FILE (lib/ops/tls.ts).
 */
export async function startChefServer(port = 0, host = '127.0.0.1', opts: { tls?: TlsFiles } = {}): Promise<{ server: http.Server | https.Server; url: string; close(): Promise<void> }> {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    serveChef(req, res)
      .then((handled) => {
        if (!handled) {
          res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': requestIdOf(req) });
          res.end(JSON.stringify({ error: ['Not found'] }));
        }
      })
      .catch((e) => {
        console.error('[chef] request failed', e);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': requestIdOf(req) });
        res.end(JSON.stringify({ error: ['internal service error'] }));
      });
  };
  const served = servePort(handler, opts.tls);
  const bound = await served.listen(port, host);
  const close = () =>
    new Promise<void>((resolve) => {
      served.listening.close(() => resolve());
      served.closeAllConnections();
    });
  return { server: served.server, url: `${served.scheme}://${host}:${bound}`, close };
}
