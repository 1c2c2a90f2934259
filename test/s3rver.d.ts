/** s3rver (dev dependency of the file store tests, issue 46) ships no types: what test/s3-server.ts uses of it. */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  export default class S3rver {
    constructor(options: { address?: string; port?: number; silent?: boolean; directory?: string; vhostBuckets?: boolean; configureBuckets?: { name: string; configs?: string[] }[] });
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
