import { describe, expect, it } from 'vitest';
import { toHex, utf8Encode } from './encoding.js';
import { sha256 } from './sha256.js';

describe('sha256', () => {
  it('gives the FIPS 180-4 answers', () => {
    expect(toHex(sha256(new Uint8Array()))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(toHex(sha256(utf8Encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(toHex(sha256(utf8Encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(toHex(sha256(new Uint8Array(1_000_000).fill(0x61)))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  it('pads right at every block edge, reading a view into a larger buffer (answers from Python hashlib)', () => {
    const big = new Uint8Array(300);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
    const expected: Record<number, string> = {
      55: 'b6ebafce9c4a6b53',
      56: 'bf569ab38caea76c',
      63: '1d30c2a54943e361',
      64: '0ed965928b736f59',
      65: '81702f53e8bbfc2e',
      119: 'da5a29f295e0ef19',
      120: '103b61a01480846f',
      128: '965989c69a82c6d4',
      200: 'bc083d39d5598ee2',
    };
    for (const [length, prefix] of Object.entries(expected)) {
      expect(toHex(sha256(big.subarray(50, 50 + Number(length)))).slice(0, 16)).toBe(prefix);
    }
  });
});
