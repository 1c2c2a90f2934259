/**
 * Issue 28: where the server may send a request it did not choose itself (a
 * webhook an admin registered). Loopback, link-local (cloud metadata),
 * private, shared (CGNAT), multicast, reserved and unspecified addresses are
 * refused unless an admin explicitly allowed them for that subscription. The
 * check runs on every address the host name resolves to, and again on the
 * address the connection is made to (the lookup is pinned, so a name that
 * resolves differently the second time cannot slip through).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { badRequest } from '@/lib/errors';

const blocked = new net.BlockList();
for (const [a, p] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(a, p, 'ipv4');
for (const [a, p] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(a, p, 'ipv6');

/** True when the address is not a public unicast address (see above). */
export function isPrivateAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  const family = net.isIP(a);
  if (family === 4) return blocked.check(a, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(a);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(a);
    if (hex) {
      const n = (parseInt(hex[1], 16) << 16) | parseInt(hex[2], 16);
      return blocked.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4');
    }
    return blocked.check(a, 'ipv6');
  }
  return true; // not an address at all: refuse
}

/** Host names that name this machine whatever they resolve to. */
export function isLocalHostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain';
}

export class RefusedTarget extends Error {}

/**
 * A `lookup` for http(s).request that resolves the name and refuses private
 * addresses (unless allowed); the connection uses exactly the address checked.
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    const cb = callback as unknown as (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void;
    dns.lookup(hostname, { all: true }, (err, addresses) => {
      if (err) return cb(err, '', 4);
      if (!addresses.length) return cb(new Error('no address'), '', 4);
      if (!allowPrivate && (isLocalHostName(hostname) || addresses.some((a) => isPrivateAddress(a.address)))) {
        return cb(new RefusedTarget('refused: the target is a loopback, link-local, private or unspecified address'), '', 4);
      }
      if ((options as { all?: boolean }).all) return cb(null, addresses);
      return cb(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The static part of the check, for a URL as registered: a literal address or a local name (resolution happens on delivery). */
export function literalTargetRefused(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isLocalHostName(host)) return true;
  return net.isIP(host) !== 0 && isPrivateAddress(host);
}

/**
 * Issue 47: the one rule for a URL the server will call that an administrator registered (a webhook, a gate's
 * outside check): http(s) only, no credentials in the URL, a host; a literal private address or localhost only
 * with the explicit allowance. Bad input is a 400 naming `opts.path` and the rule.
 */
export function checkTargetUrl(raw: string, allowPrivate: boolean, opts: { path: string; allowField: string; credentials?: string }): string {
  const fail = (message: string) => badRequest(message, [{ path: opts.path, message }]);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw fail('url must be an absolute http:// or https:// URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw fail('url must use http or https');
  if (u.username || u.password) {
    const message = `url must not contain credentials${opts.credentials ? ` (${opts.credentials})` : ''}`;
    throw badRequest(message, [{ path: opts.path, message: 'url must not contain credentials' }]);
  }
  if (!u.hostname) throw fail('url must name a host');
  if (!allowPrivate && literalTargetRefused(u)) throw fail(`url must not point at a loopback, link-local, private or unspecified address (set ${opts.allowField} to allow it explicitly)`);
  return u.toString();
}

export const REFUSED_TARGET = 'refused: the target is a loopback, link-local, private or unspecified address';

/**
 * Issue 47: a bounded GET to an administrator-registered URL: the target's addresses are checked before
 * connecting (the pinned lookup above), redirects are not followed, at most `maxBytes` of the answer are read,
 * and the whole exchange ends after `timeoutMs` whatever the other side does (a hanging server included).
 */
export async function guardedGet(url: string, opts: { timeoutMs: number; allowPrivate: boolean; maxBytes?: number }): Promise<{ status: number | null; body: string; error: string | null; timedOut: boolean }> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { status: null, body: '', error: 'invalid URL', timedOut: false };
  }
  if (!opts.allowPrivate && literalTargetRefused(u)) return { status: null, body: '', error: REFUSED_TARGET, timedOut: false };
  const mod = u.protocol === 'https:' ? https : http;
  const limit = opts.maxBytes ?? 256 * 1024;
  return new Promise((resolve) => {
    let done = false;
    const chunks: Buffer[] = [];
    let read = 0;
    let status: number | null = null;
    const finish = (r: { error: string | null; timedOut?: boolean }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, body: Buffer.concat(chunks).toString('utf8'), error: r.error, timedOut: !!r.timedOut });
    };
    const req = mod.request(u, { method: 'GET', headers: { accept: 'application/json', 'user-agent': 'policy-console-checks/1' }, lookup: guardedLookup(opts.allowPrivate), agent: false }, (res) => {
      status = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        if (read < limit) chunks.push(chunk.subarray(0, limit - read));
        read += chunk.length;
        if (read >= limit) finish({ error: null });
      });
      res.on('end', () => finish({ error: null }));
      res.on('error', () => finish({ error: 'connection failed' }));
    });
    const timer = setTimeout(() => finish({ error: `timed out after ${opts.timeoutMs} ms`, timedOut: true }), opts.timeoutMs);
    req.on('error', (e) => finish({ error: e instanceof RefusedTarget ? REFUSED_TARGET : 'connection failed' }));
    req.end();
  });
}
