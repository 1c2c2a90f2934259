/**
 * The one request body reader of the node:http front (docs/architecture.md 7.3), for every door it serves: the
 * door calls it after its route match with the route's limit and answers 'too-large' with its own 413 body.
 * Counted while streaming, so a chunked body without Content-Length is cut off at the limit instead of being
 * read whole first (issue 17, item 12); a declared Content-Length over the limit is refused before anything is
 * read (answer it with `connection: close`). No Content-Length and no Transfer-Encoding: HTTP/1.1 says there is
 * no body (most Chef GETs).
 */
import type { IncomingMessage } from 'node:http';

const EMPTY = Buffer.alloc(0);

/** True when the request declares a body larger than `limit` (refused before reading). */
export function declaresOver(req: IncomingMessage, limit: number): boolean {
  return Number(req.headers['content-length'] ?? 0) > limit;
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  if (declaresOver(req, limit)) return Promise.resolve('too-large');
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    req.resume();
    return Promise.resolve(EMPTY);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve('too-large');
        // The rest is drained, so the connection stays usable for the 413.
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => !over && resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
