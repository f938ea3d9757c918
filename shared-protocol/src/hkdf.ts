import nacl from 'tweetnacl';

/**
 * HKDF (RFC 5869) over HMAC-SHA-512 (RFC 2104), with tweetnacl's SHA-512: a few hashes per
 * handshake, never on a hot path. `node:crypto`'s `hkdfSync('sha512', …)` gives the same bytes
 * (machine/src/link/node-link-aead.test.ts checks it).
 */

const BLOCK_BYTES = 128;
export const HKDF_HASH_BYTES = 64;

export function hmacSha512(key: Uint8Array, message: Uint8Array): Uint8Array {
  const block = new Uint8Array(BLOCK_BYTES);
  block.set(key.length > BLOCK_BYTES ? nacl.hash(key) : key);
  const inner = new Uint8Array(BLOCK_BYTES + message.length);
  const outer = new Uint8Array(BLOCK_BYTES + HKDF_HASH_BYTES);
  for (let i = 0; i < BLOCK_BYTES; i++) {
    inner[i] = block[i]! ^ 0x36;
    outer[i] = block[i]! ^ 0x5c;
  }
  inner.set(message, BLOCK_BYTES);
  outer.set(nacl.hash(inner), BLOCK_BYTES);
  return nacl.hash(outer);
}

/** HKDF-Extract: a pseudorandom key from input keying material and a salt. */
export function hkdfExtract(salt: Uint8Array, ikm: Uint8Array): Uint8Array {
  return hmacSha512(salt, ikm);
}

/** HKDF-Expand: `length` bytes (at most 255 hashes) for the purpose `info` names. */
export function hkdfExpand(prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  if (length > 255 * HKDF_HASH_BYTES) throw new RangeError('HKDF output too long');
  const out = new Uint8Array(length);
  let previous: Uint8Array = new Uint8Array(0);
  for (let i = 1, at = 0; at < length; i++) {
    const input = new Uint8Array(previous.length + info.length + 1);
    input.set(previous);
    input.set(info, previous.length);
    input[input.length - 1] = i;
    previous = hmacSha512(prk, input);
    out.set(previous.subarray(0, Math.min(HKDF_HASH_BYTES, length - at)), at);
    at += HKDF_HASH_BYTES;
  }
  return out;
}
