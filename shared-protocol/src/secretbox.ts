import nacl from 'tweetnacl';
import { constantTimeEqual } from './encoding.js';

/**
 * NaCl's secretbox (XSalsa20-Poly1305) behind a port, as X25519 is: each runtime uses its fastest
 * one, chosen at start after `checkSecretbox` passed, and the bytes on the wire are the same
 * whichever does the work. The host seals every frame a phone gets, so it uses libsodium's native
 * code where it loads (host/src/crypto/native-secretbox.ts); the app and anything else use
 * tweetnacl.
 *
 * Both calls work in place on NaCl's padded buffers, as `crypto_secretbox` does:
 * - `seal`: the buffer is 32 zero bytes and the plaintext; afterwards it is 16 zero bytes, the
 *   16-byte tag and the ciphertext;
 * - `open`: the buffer is 16 zero bytes, the tag and the ciphertext; afterwards it is 32 zero
 *   bytes and the plaintext. False (and the buffer's contents unspecified) if it does not verify.
 */
export interface Secretbox {
  /** For logs and benches: which implementation this is. */
  readonly name: string;
  readonly seal: (buffer: Uint8Array, nonce: Uint8Array, key: Uint8Array) => void;
  readonly open: (buffer: Uint8Array, nonce: Uint8Array, key: Uint8Array) => boolean;
}

/** tweetnacl 1.0.3 exposes its primitives under `lowlevel` at run time, though not in its types. */
interface SecretboxLowLevel {
  crypto_secretbox(c: Uint8Array, m: Uint8Array, d: number, n: Uint8Array, k: Uint8Array): number;
  crypto_secretbox_open(m: Uint8Array, c: Uint8Array, d: number, n: Uint8Array, k: Uint8Array): number;
}
/** Read at each call, not at load: a bundler keeps a property read at the top of a module. */
const lowlevel = (): SecretboxLowLevel => (nacl as unknown as { lowlevel: SecretboxLowLevel }).lowlevel;

/**
 * tweetnacl's primitives, in place: Salsa20 reads each byte before it writes it, and Poly1305 reads
 * the ciphertext only. (`nacl.secretbox` would copy the frame into and out of a padded buffer.)
 */
export const tweetnaclSecretbox: Secretbox = {
  name: 'tweetnacl',
  seal: (buffer, nonce, key) => void lowlevel().crypto_secretbox(buffer, buffer, buffer.length, nonce, key),
  open: (buffer, nonce, key) => lowlevel().crypto_secretbox_open(buffer, buffer, buffer.length, nonce, key) === 0,
};

/**
 * Whether `candidate` seals as tweetnacl does (sizes around the 64-byte block and Poly1305's
 * 16-byte one, a frame's worth), opens what tweetnacl sealed, and refuses a box with one bit
 * changed. A program runs it once before choosing `candidate`.
 */
export function checkSecretbox(candidate: Secretbox): boolean {
  try {
    const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 29 + 7) & 0xff);
    const nonce = Uint8Array.from({ length: 24 }, (_, i) => (i * 13 + 1) & 0xff);
    for (const size of [0, 1, 15, 16, 17, 63, 64, 65, 1000, 70_000]) {
      const plain = Uint8Array.from({ length: size }, (_, i) => (i * 31 + size) & 0xff);
      const padded = () => {
        const buffer = new Uint8Array(32 + size);
        buffer.set(plain, 32);
        return buffer;
      };
      const mine = padded();
      const theirs = padded();
      candidate.seal(mine, nonce, key);
      tweetnaclSecretbox.seal(theirs, nonce, key);
      if (!constantTimeEqual(mine, theirs)) return false;
      if (!candidate.open(mine, nonce, key) || !constantTimeEqual(mine.subarray(32), plain)) return false;
      theirs[20] = theirs[20]! ^ 1;
      if (candidate.open(theirs, nonce, key)) return false;
    }
    return true;
  } catch {
    return false;
  }
}
