/**
 * Byte helpers without `Buffer`: base64url (RFC 4648 §5, no padding, canonical only), UTF-8,
 * big-endian integers, concatenation and a constant-time compare.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

/** Alphabet character codes: encoding writes bytes of ASCII and decodes them once, because
 * building a string a character at a time costs ~160 ns a byte (a 5 MB photo: most of a second). */
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ascii = new TextDecoder();

export function toBase64Url(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil((bytes.length * 4) / 3));
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = CODES[(n >> 6) & 63]!;
    out[o++] = CODES[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = CODES[(n >> 6) & 63]!;
  }
  return ascii.decode(out.subarray(0, o));
}

/**
 * Decodes base64url. Returns undefined for anything that is not the canonical encoding of some
 * bytes (a character outside the alphabet, padding, an impossible length, or non-zero trailing
 * bits), so that two different strings never decode to the same bytes.
 */
export function fromBase64Url(text: string): Uint8Array | undefined {
  const len = text.length;
  if (len % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((len * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? DECODE[c]! : -1;
    if (v < 0) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
      acc &= (1 << bits) - 1;
    }
  }
  if (acc !== 0) return undefined;
  return out;
}

/** Decodes base64url that must hold exactly `length` bytes. */
export function fromBase64UrlExact(text: string, length: number): Uint8Array | undefined {
  const bytes = fromBase64Url(text);
  return bytes !== undefined && bytes.length === length ? bytes : undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function utf8Encode(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Decodes UTF-8; undefined for invalid sequences (never a replacement character). */
export function utf8Decode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Compares in time that depends only on the lengths, never on where the contents differ. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Writes a non-negative safe integer as 8 big-endian bytes. */
export function writeUint64(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a uint64: ${value}`);
  const out = new Uint8Array(8);
  let v = value;
  for (let i = 7; i >= 0; i--) {
    out[i] = v % 256;
    v = Math.floor(v / 256);
  }
  return out;
}

/** Reads 8 big-endian bytes; undefined when the value is beyond Number.MAX_SAFE_INTEGER. */
export function readUint64(bytes: Uint8Array, offset = 0): number | undefined {
  if (offset + 8 > bytes.length) return undefined;
  if (bytes[offset]! > 0x1f) return undefined;
  let v = 0;
  for (let i = 0; i < 8; i++) v = v * 256 + bytes[offset + i]!;
  return v;
}

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

export function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-f]*$/.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}
