import { describe, expect, it } from 'vitest';
import { presignQuery, verifyPresigned } from './presigned-url';

process.env.CHEF_FILE_URL_SECRET = 'unit-test-secret';
const PATH = '/organizations/console/file_store/checksums/0123456789abcdef0123456789abcdef';
const NOW = Date.UTC(2026, 10, 26, 1, 0, 1); // just past a window boundary

describe('pre-signed cookbook file URLs', () => {
  const q = new URLSearchParams(presignQuery(PATH, NOW));

  it('verify for their path until they expire, then say expired', () => {
    expect(verifyPresigned(PATH, q, NOW)).toBe('ok');
    const expires = Number(q.get('expires')) * 1000;
    expect(expires).toBeGreaterThanOrEqual(NOW + 28_800_000);
    expect(verifyPresigned(PATH, q, expires - 1)).toBe('ok');
    expect(verifyPresigned(PATH, q, expires)).toBe('expired');
  });

  it('are the same within one 15-minute window (cacheable), and differ by path', () => {
    expect(presignQuery(PATH, NOW + 60_000)).toBe(presignQuery(PATH, NOW));
    expect(presignQuery(PATH.replace('0123', '3210'), NOW)).not.toBe(presignQuery(PATH, NOW));
  });

  it('are refused when the path, the expiry or the signature is changed, or a part is missing', () => {
    expect(verifyPresigned(PATH.replace('0123', '3210'), q, NOW)).toBe('invalid');
    const later = new URLSearchParams(q);
    later.set('expires', String(Number(q.get('expires')) + 900));
    expect(verifyPresigned(PATH, later, NOW)).toBe('invalid');
    const forged = new URLSearchParams(q);
    forged.set('signature', 'f'.repeat(64));
    expect(verifyPresigned(PATH, forged, NOW)).toBe('invalid');
    expect(verifyPresigned(PATH, new URLSearchParams({ signature: q.get('signature')! }), NOW)).toBe('invalid');
  });

  it('depend on the server secret', () => {
    process.env.CHEF_FILE_URL_SECRET = 'another-secret';
    try {
      expect(verifyPresigned(PATH, q, NOW)).toBe('invalid');
    } finally {
      process.env.CHEF_FILE_URL_SECRET = 'unit-test-secret';
    }
  });
});
