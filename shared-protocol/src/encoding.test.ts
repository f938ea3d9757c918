import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  concatBytes,
  constantTimeEqual,
  fromBase64Url,
  fromBase64UrlExact,
  fromHex,
  readUint64,
  toBase64Url,
  toHex,
  utf8Decode,
  utf8Encode,
  writeUint64,
} from './encoding.js';

describe('base64url', () => {
  it('matches RFC 4648 test vectors (url alphabet, no padding)', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['f', 'Zg'],
      ['fo', 'Zm8'],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg'],
      ['fooba', 'Zm9vYmE'],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, encoded] of cases) {
      expect(toBase64Url(utf8Encode(plain))).toBe(encoded);
      expect(utf8Decode(fromBase64Url(encoded)!)).toBe(plain);
    }
    expect(toBase64Url(Uint8Array.of(0xfb, 0xff))).toBe('-_8');
  });

  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
      }),
    );
  });

  it('refuses padding, foreign characters, impossible lengths and non-canonical tails', () => {
    for (const bad of ['Zg==', 'Zm9v+', 'Zm9v/', 'Z', 'Zm9vY', 'Zh', 'Zm9', 'Zm8 ', 'é']) {
      if (bad === 'Zm9') continue; // canonical encoding of "fo"
      expect(fromBase64Url(bad), bad).toBeUndefined();
    }
    expect(fromBase64Url('Zm8')).toBeDefined();
    expect(fromBase64Url('Zm9')).toBeUndefined(); // trailing bits set
  });

  it('gives every byte string exactly one encoding', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const bytes = fromBase64Url(text);
        if (bytes) expect(toBase64Url(bytes)).toBe(text);
      }),
    );
  });

  it('checks exact lengths', () => {
    expect(fromBase64UrlExact(toBase64Url(new Uint8Array(32)), 32)).toHaveLength(32);
    expect(fromBase64UrlExact(toBase64Url(new Uint8Array(31)), 32)).toBeUndefined();
  });
});

describe('utf8', () => {
  it('round-trips text and refuses invalid sequences', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(utf8Decode(utf8Encode(text))).toBe(text);
      }),
    );
    expect(utf8Decode(Uint8Array.of(0xc3, 0x28))).toBeUndefined();
    expect(utf8Decode(Uint8Array.of(0xed, 0xa0, 0x80))).toBeUndefined();
  });
});

describe('integers and bytes', () => {
  it('round-trips uint64 and refuses unsafe values', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(readUint64(writeUint64(n))).toBe(n);
      }),
    );
    expect(() => writeUint64(-1)).toThrow(RangeError);
    expect(readUint64(Uint8Array.of(0x20, 0, 0, 0, 0, 0, 0, 0))).toBeUndefined();
    expect(readUint64(new Uint8Array(7))).toBeUndefined();
  });

  it('compares in constant time and concatenates', () => {
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(constantTimeEqual(Uint8Array.of(1), Uint8Array.of(1, 2))).toBe(false);
    expect(concatBytes(Uint8Array.of(1), Uint8Array.of(), Uint8Array.of(2, 3))).toEqual(Uint8Array.of(1, 2, 3));
    expect(fromHex(toHex(Uint8Array.of(0, 255, 16)))).toEqual(Uint8Array.of(0, 255, 16));
    expect(fromHex('0g')).toBeUndefined();
  });
});
