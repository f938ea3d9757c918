import nacl from 'tweetnacl';

/**
 * ChaCha20-Poly1305 (RFC 8439 §2.8) in plain TypeScript, with tweetnacl's Poly1305. It is the
 * reference the machine link's vectors are checked with in any runtime, and the fallback where no
 * native AEAD is at hand: about 50 MB/s, where OpenSSL through `node:crypto` does 1.5 GB/s. A
 * program that has OpenSSL uses it (machine/src/link/node-link-aead.ts); the bytes are the same.
 */

export const CHACHA_KEY_BYTES = 32;
export const CHACHA_NONCE_BYTES = 12;
export const POLY1305_TAG_BYTES = 16;

/** tweetnacl 1.0.3 exposes Poly1305 under `lowlevel` at run time, though not in its types. */
interface OneTimeAuthLowLevel {
  crypto_onetimeauth(out: Uint8Array, outpos: number, m: Uint8Array, mpos: number, n: number, k: Uint8Array): number;
}
const lowlevel = (): OneTimeAuthLowLevel => (nacl as unknown as { lowlevel: OneTimeAuthLowLevel }).lowlevel;

const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n));

function quarter(s: Uint32Array, a: number, b: number, c: number, d: number): void {
  s[a] = (s[a]! + s[b]!) | 0;
  s[d] = rotl(s[d]! ^ s[a], 16);
  s[c] = (s[c]! + s[d]) | 0;
  s[b] = rotl(s[b]! ^ s[c], 12);
  s[a] = (s[a] + s[b]) | 0;
  s[d] = rotl(s[d] ^ s[a], 8);
  s[c] = (s[c] + s[d]) | 0;
  s[b] = rotl(s[b] ^ s[c], 7);
}

const readLe32 = (b: Uint8Array, at: number): number =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/** The cipher's starting state for `key` and `nonce`, block counter 0. */
function initialState(key: Uint8Array, nonce: Uint8Array): Uint32Array {
  const state = new Uint32Array(16);
  state.set([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
  for (let i = 0; i < 8; i++) state[4 + i] = readLe32(key, i * 4);
  for (let i = 0; i < 3; i++) state[13 + i] = readLe32(nonce, i * 4);
  return state;
}

/** The 64-byte block for `state` (whose word 12 is the block counter), little-endian into `out`. */
function block(state: Uint32Array, work: Uint32Array, out: Uint8Array): void {
  work.set(state);
  for (let round = 0; round < 10; round++) {
    quarter(work, 0, 4, 8, 12);
    quarter(work, 1, 5, 9, 13);
    quarter(work, 2, 6, 10, 14);
    quarter(work, 3, 7, 11, 15);
    quarter(work, 0, 5, 10, 15);
    quarter(work, 1, 6, 11, 12);
    quarter(work, 2, 7, 8, 13);
    quarter(work, 3, 4, 9, 14);
  }
  for (let i = 0; i < 16; i++) {
    const word = (work[i]! + state[i]!) >>> 0;
    out[i * 4] = word & 0xff;
    out[i * 4 + 1] = (word >>> 8) & 0xff;
    out[i * 4 + 2] = (word >>> 16) & 0xff;
    out[i * 4 + 3] = word >>> 24;
  }
}

/** `input` XOR the key stream from block `counter` on, into `out` (which may be `input`). */
function chacha20Xor(key: Uint8Array, nonce: Uint8Array, counter: number, input: Uint8Array, out: Uint8Array): void {
  const state = initialState(key, nonce);
  const work = new Uint32Array(16);
  const stream = new Uint8Array(64);
  for (let at = 0; at < input.length; at += 64) {
    state[12] = counter++;
    block(state, work, stream);
    const end = Math.min(64, input.length - at);
    for (let i = 0; i < end; i++) out[at + i] = input[at + i]! ^ stream[i]!;
  }
}

/** Poly1305 over `aad | pad16 | ciphertext | pad16 | le64(aad) | le64(ciphertext)` (§2.8). */
function tag(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  const polyKey = new Uint8Array(64);
  block(initialState(key, nonce), new Uint32Array(16), polyKey);
  const pad = (n: number) => (16 - (n % 16)) % 16;
  const cipherAt = aad.length + pad(aad.length);
  const lengthsAt = cipherAt + ciphertext.length + pad(ciphertext.length);
  const data = new Uint8Array(lengthsAt + 16);
  data.set(aad);
  data.set(ciphertext, cipherAt);
  const view = new DataView(data.buffer);
  view.setUint32(lengthsAt, aad.length, true);
  view.setUint32(lengthsAt + 4, Math.floor(aad.length / 0x1_0000_0000), true);
  view.setUint32(lengthsAt + 8, ciphertext.length >>> 0, true);
  view.setUint32(lengthsAt + 12, Math.floor(ciphertext.length / 0x1_0000_0000), true);
  const out = new Uint8Array(POLY1305_TAG_BYTES);
  lowlevel().crypto_onetimeauth(out, 0, data, 0, data.length, polyKey.subarray(0, 32));
  return out;
}

/** Ciphertext then the 16-byte tag. */
export function chacha20Poly1305Seal(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
): Uint8Array {
  const out = new Uint8Array(plaintext.length + POLY1305_TAG_BYTES);
  const ciphertext = out.subarray(0, plaintext.length);
  chacha20Xor(key, nonce, 1, plaintext, ciphertext);
  out.set(tag(key, nonce, aad, ciphertext), plaintext.length);
  return out;
}

/** The plaintext of `sealed` (ciphertext then tag), or undefined when it does not authenticate. */
export function chacha20Poly1305Open(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  sealed: Uint8Array,
): Uint8Array | undefined {
  if (sealed.length < POLY1305_TAG_BYTES) return undefined;
  const ciphertext = sealed.subarray(0, sealed.length - POLY1305_TAG_BYTES);
  if (!nacl.verify(tag(key, nonce, aad, ciphertext), sealed.subarray(ciphertext.length))) return undefined;
  const plaintext = new Uint8Array(ciphertext.length);
  chacha20Xor(key, nonce, 1, ciphertext, plaintext);
  return plaintext;
}
