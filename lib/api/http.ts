/**
 * /api/v1 over plain node:http (issue 49: the API at wire speed, off the framework): the node:http front hands
 * every /api/v1 path here (scripts/serve.ts) instead of to Next. Builds the envelope's request (path, query,
 * headers, a body read on demand with the contract's limit, counted while streaming), runs the router and
 * writes the answer with the console's security headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { securityHeaders } from '@/lib/ops/security-headers.mjs';
import { tooLarge, type ApiRequest } from './envelope';
import { handleApi, isApiPath } from './router';

const SECURITY = Object.fromEntries(securityHeaders(process.env.NODE_ENV !== 'production').map((h) => [h.key.toLowerCase(), h.value]));
const EMPTY = new Uint8Array(0);

/** Reads the whole body, counting: past `limit` the rest is left unread and null comes back. */
function readAll(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** Serves an /api/v1 request; false for any other path (the caller hands it on). */
export async function serveApi(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!isApiPath(path)) return false;
  let read: { limit: number; body: Promise<Buffer | null> } | undefined;
  let cut = false;
  const apiReq: ApiRequest = {
    method: (req.method ?? 'GET').toUpperCase(),
    path,
    query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
    header: (name) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    origin: `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`,
    body: async (limit) => {
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > limit) {
        cut = true;
        throw tooLarge(declared, limit);
      }
      // No Content-Length and no Transfer-Encoding: HTTP/1.1 says there is no body.
      if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return EMPTY;
      read ??= { limit, body: readAll(req, limit) };
      const body = await read.body;
      if (body === null || body.length > limit) {
        cut = true;
        throw tooLarge(`more than ${Math.min(limit, read.limit)}`, limit);
      }
      return body;
    },
  };
  const out = await handleApi(apiReq);
  // A body refused unread (or cut at the limit) ends the connection; one a refusal did not need is drained for reuse.
  if (cut) out.headers.connection = 'close';
  else if (!req.readableEnded) req.resume();
  res.writeHead(out.status, { ...SECURITY, ...out.headers });
  res.end(out.body);
  return true;
}
