/**
 * Pre-signed cookbook file URLs (issue 23), as Chef Server hands out
 * bookshelf/S3 URLs: a cookbook artifact's manifest names each file by a URL
 * that works without signing the request until it expires, and that cannot be
 * changed to name another file or a later expiry.
 *
 *   /organizations/<org>/file_store/checksums/<md5>?expires=<unix s>&signature=<hex>
 *
 * `signature` is HMAC-SHA256 over the path as sent and the expiry, keyed with
 * a server secret: CHEF_FILE_URL_SECRET, or one derived from the session
 * secret (lib/auth/secret.ts; so every instance sharing it accepts the URLs of
 * the others). The lifetime is CHEF_FILE_URL_TTL seconds (default 28800, Chef
 * Server's `s3_url_ttl`); the expiry is rounded up to a 15-minute window, as
 * erchef's `s3_url_expiry_window_size` does, so the same manifest read twice
 * gives the same URLs (caches keep working). Only actors that may read
 * cookbooks (`cookbook.read`) are handed such URLs; the URL is the capability.
 * Signed and token requests to the same path are served as before.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { authSecret } from '@/lib/auth/secret';
import { processBox } from '@/lib/process-state';

const WINDOW_SECONDS = 900;

function ttlSeconds(): number {
  const n = Number(process.env.CHEF_FILE_URL_TTL);
  return Number.isInteger(n) && n > 0 ? n : 28_800;
}

/** The key and the configuration it was derived from: process state (lib/process-state.ts), one for the server's copy and Next's. */
const derived = processBox<{ config: string; key: Buffer }>('chef.file-url.key');

/** The signing key, derived once per configuration (the session secret may live in a file: not read per URL). */
function secretKey(): Buffer {
  const e = process.env;
  const config = JSON.stringify([e.CHEF_FILE_URL_SECRET, e.NEXTAUTH_SECRET, e.AUTH_SECRET, e.AUTH_SECRET_FILE]);
  if (derived.current?.config !== config) {
    const key = e.CHEF_FILE_URL_SECRET ? Buffer.from(e.CHEF_FILE_URL_SECRET) : createHmac('sha256', authSecret()).update('chef-file-url/v1').digest();
    derived.current = { config, key };
  }
  return derived.current.key;
}

function mac(path: string, expires: number): string {
  return createHmac('sha256', secretKey()).update(`${path}\n${expires}`).digest('hex');
}

/** When a file URL handed out at `now` (ms) expires, in Unix seconds (the store's own pre-signed URLs expire then too, issue 46). */
export function presignExpiry(now = Date.now()): number {
  return Math.ceil((now / 1000 + ttlSeconds()) / WINDOW_SECONDS) * WINDOW_SECONDS;
}

/** `?expires=…&signature=…` for a path (as it will be sent, below the base URL). */
export function presignQuery(path: string, now = Date.now()): string {
  const expires = presignExpiry(now);
  return `expires=${expires}&signature=${mac(path, expires)}`;
}

/** True when the request names a pre-signed URL at all (its `signature` parameter). */
export function isPresigned(query: URLSearchParams): boolean {
  return query.has('signature');
}

/** Checks a pre-signed URL: 'ok', or why not ('expired' | 'invalid'). */
export function verifyPresigned(path: string, query: URLSearchParams, now = Date.now()): 'ok' | 'expired' | 'invalid' {
  const expires = query.get('expires');
  const signature = query.get('signature');
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
  const expected = mac(path, Number(expires));
  // Compared as digests of equal length, in constant time.
  const same = timingSafeEqual(createHash('sha256').update(signature).digest(), createHash('sha256').update(expected).digest());
  if (!same) return 'invalid';
  return Number(expires) * 1000 > now ? 'ok' : 'expired';
}
