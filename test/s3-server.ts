/**
 * A throwaway S3-compatible server for the file store tests (issue 46):
 * s3rver from npm, in this process, on a random port, with its files in a
 * fresh temporary directory. It checks SigV4 signatures with the access key
 * S3RVER / S3RVER (set in the environment by `s3Env`).
 *
 *   const s3 = await startS3Server();
 *   Object.assign(process.env, s3.env({ FILE_STORE: 's3' }));
 *   …
 *   await s3.stop();
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** The directory s3rver keeps the bucket in. */
  dir: string;
  /** The environment a console needs for this store (FILE_STORE and S3_DIRECT_DOWNLOADS from `extra`). */
  env(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

export async function startS3Server(bucket = 'cookbooks'): Promise<S3Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'policy-console-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }], vhostBuckets: false });
  const addr: AddressInfo = await server.run();
  // s3rver keeps objects as files and removes a directory when its last object is deleted: an upload writing a staging
  // object under uploads/ while another upload's delete empties it then fails to open its file (ENOENT, uncaught).
  // A file that is not an object keeps the directory (S3 itself has no directories).
  fs.mkdirSync(path.join(dir, bucket, 'uploads'), { recursive: true });
  fs.writeFileSync(path.join(dir, bucket, 'uploads', '.keep'), '');
  const endpoint = `http://127.0.0.1:${addr.port}`;
  return {
    endpoint,
    bucket,
    dir,
    env: (extra = {}) => ({
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      ...extra,
    }),
    stop: async () => {
      await server.close().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
