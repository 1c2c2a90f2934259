/** HTTP(S) requests to a deployed instance, trusting the HTTPS instance's own certificate (`ca`), as a client that was given it does. */
import http from 'node:http';
import https from 'node:https';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed, or undefined when it is not JSON. */
  json: any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  ca?: Buffer;
  token?: string;
}

export function request(url: string, o: RequestOptions = {}): Promise<Answer> {
  const u = new URL(url);
  const body = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  const headers: Record<string, string> = { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(o.token ? { authorization: `Bearer ${o.token}` } : {}), ...o.headers };
  const mod = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(u, { method: o.method ?? 'GET', headers, ...(u.protocol === 'https:' ? { ca: o.ca } : {}), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const get = (url: string, o: Omit<RequestOptions, 'method' | 'body'> = {}) => request(url, o);
