/**
 * The Chef surface over plain node:http: what the console's server runs in
 * front of Next (see scripts/serve.ts), and what tests and benchmarks start on
 * their own. Reads the body with the front's reader (lib/ops/body.ts): a JSON request past Chef's
 * limit (CHEF_MAX_REQUEST_SIZE, default 2000000 bytes as Chef Server's
 * opscode_erchef['max_request_size']) is answered 413 with Chef's text; a
 * cookbook file upload (file_store, bookshelf's part in Chef) past
 * MAX_BODY_BYTES.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type https from 'node:https';
import { servePort, type TlsFiles } from '@/lib/ops/tls';
import { maxDocumentBytes } from '@/lib/validation/limits';
import { chefMaxRequestSize, publicUrl } from '@/lib/config';
import { handleChef, isChefPath } from './router';
import { declaresOver, readBody } from '@/lib/ops/body';
import { requestIdFrom } from '@/lib/ops/request-id';
import { DATA_COLLECTOR_TOKEN_PATHS, serveDataCollectorToken } from './data-collector-token';

/** Cookbook file uploads go to the file store (bookshelf in Chef Server), not through erchef's JSON limit. */
function isFileUpload(rawPath: string): boolean {
  return /^\/organizations\/[^/]+\/file_store\//.test(rawPath);
}

const EMPTY = Buffer.alloc(0);

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
  if (DATA_COLLECTOR_TOKEN_PATHS.has(rawPath)) {
    await serveDataCollectorToken(req, res);
    return true;
  }
  if (!isChefPath(rawPath)) return false;
  const upload = isFileUpload(rawPath);
  const limit = upload ? maxDocumentBytes() : chefMaxRequestSize();
  // Issue 46: a cookbook file upload is not read here: its handler streams it to the file store (which counts it against the limit).
  const streamed = upload && req.method === 'PUT' && !declaresOver(req, limit);
  const body = streamed ? EMPTY : await readBody(req, limit);
  if (body === 'too-large') {
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close', 'x-request-id': requestIdOf(req) });
    // Chef's text (a string, as erchef answers it); uploads name the console's own limit.
    res.end(JSON.stringify({ error: upload ? `Request body is larger than ${limit} bytes (MAX_BODY_BYTES)` : `JSON must be no more than ${limit} bytes.` }));
    return true;
  }
  const out = await handleChef({
    method: (req.method ?? 'GET').toUpperCase(),
    rawPath,
    query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
    header: (name) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    body,
    ...(streamed ? { stream: req } : {}),
    baseUrl: baseUrl(req),
  });
  // What a handler did not read of a streamed body (a refusal before it) is drained, so the connection can be reused.
  if (streamed && !req.readableEnded) req.resume();
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
