import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sha256Hex, sha256HexPure } from './sha256';

const node = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('sha256Hex', () => {
  it.each([['pure', sha256HexPure], ['as exported', sha256Hex]] as const)('FIPS 180-4 vectors (%s)', (_name, sha256Hex) => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
    expect(sha256Hex('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('the pure implementation agrees with node:crypto on UTF-8 text of every length around the block boundaries', () => {
    for (let n = 0; n < 200; n++) expect(sha256HexPure('é'.repeat(n % 7) + 'x'.repeat(n))).toBe(node('é'.repeat(n % 7) + 'x'.repeat(n)));
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => sha256HexPure(s) === node(s)));
  });
});
