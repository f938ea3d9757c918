import { describe, expect, it } from 'vitest';
import { toHex, utf8Encode } from './encoding.js';
import { hkdfExpand, hkdfExtract, hmacSha512 } from './hkdf.js';

describe('HKDF over HMAC-SHA-512', () => {
  it('gives RFC 4231 test case 1 for HMAC-SHA-512', () => {
    expect(toHex(hmacSha512(new Uint8Array(20).fill(0x0b), utf8Encode('Hi There')))).toBe(
      '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde' +
        'daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
    );
  });

  it('expands past one hash, each prefix the shorter output', () => {
    const prk = hkdfExtract(utf8Encode('salt'), utf8Encode('input keying material'));
    const long = hkdfExpand(prk, utf8Encode('info'), 150);
    expect(long).toHaveLength(150);
    expect(hkdfExpand(prk, utf8Encode('info'), 12)).toEqual(long.subarray(0, 12));
    expect(hkdfExpand(prk, utf8Encode('other'), 12)).not.toEqual(long.subarray(0, 12));
    expect(() => hkdfExpand(prk, utf8Encode('info'), 255 * 64 + 1)).toThrow(RangeError);
  });
});
