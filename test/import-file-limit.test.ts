/**
 * Issue 27, memory: a cookbook file is held whole only up to the console's own
 * file limit (MAX_BODY_BYTES, what knife could upload to it). A larger one is
 * refused by both sources, naming where it is, before it is read (a
 * directory: its size; a live server: its Content-Length, or the bytes
 * received so far when it sends none).
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChefServerSource } from '@/lib/chef/import-source';
import { DirectorySource } from '@/lib/services/import';

const LIMIT = 4096;
const small = Buffer.alloc(LIMIT, 7);
const big = Buffer.alloc(LIMIT + 1, 7);
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
let saved: string | undefined;

beforeAll(() => {
  saved = process.env.MAX_BODY_BYTES;
  process.env.MAX_BODY_BYTES = String(LIMIT);
});
afterAll(() => {
  if (saved === undefined) delete process.env.MAX_BODY_BYTES;
  else process.env.MAX_BODY_BYTES = saved;
});

describe('a directory source', () => {
  it('reads a file at the limit and refuses one above it, naming its path', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-limit-'));
    try {
      const id = 'a'.repeat(40);
      const cb = path.join(dir, 'cookbook_artifacts', `big-${id}`, 'files', 'default');
      fs.mkdirSync(cb, { recursive: true });
      fs.writeFileSync(path.join(cb, 'small.bin'), small);
      fs.writeFileSync(path.join(cb, 'big.bin'), big);
      const src = new DirectorySource(dir);
      expect(await src.cookbookFile('big', id, { path: 'files/default/small.bin', checksum: md5(small) })).toEqual(small);
      await expect(src.cookbookFile('big', id, { path: 'files/default/big.bin', checksum: md5(big) })).rejects.toThrow(`${path.join(cb, 'big.bin')}: ${LIMIT + 1} bytes, more than the console's file limit of ${LIMIT} bytes (MAX_BODY_BYTES)`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a live source', () => {
  let server: http.Server;
  let url: string;
  let sentChunks = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url!.endsWith('/small')) return void res.writeHead(200, { 'content-length': String(small.length) }).end(small);
      if (req.url!.endsWith('/declared')) return void res.writeHead(200, { 'content-length': String(big.length) }).end(big);
      // No Content-Length: chunk after chunk, far past the limit; the reader stops after the limit.
      res.writeHead(200, { 'transfer-encoding': 'chunked' });
      const chunk = Buffer.alloc(1024, 7);
      const more = () => {
        while (sentChunks < 1000 && !res.destroyed) {
          sentChunks++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('reads a file at the limit, and refuses a larger one by its Content-Length or as its bytes arrive', async () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const src = new ChefServerSource({ server: url, org: 'acme', user: 'pivotal', privateKey: key, attempts: 1 });
    const file = (name: string, b: Buffer) => ({ path: `files/${name}`, checksum: md5(b), url: `${url}/organizations/acme/file_store/${name}` });
    expect(await src.cookbookFile('cb', 'x', file('small', small))).toEqual(small);
    await expect(src.cookbookFile('cb', 'x', file('declared', big))).rejects.toThrow(`file_store/declared: ${LIMIT + 1} bytes, more than the console's file limit of ${LIMIT} bytes`);
    await expect(src.cookbookFile('cb', 'x', file('streamed', big))).rejects.toThrow(`file_store/streamed: over ${LIMIT} bytes received, more than the console's file limit`);
  });
});
