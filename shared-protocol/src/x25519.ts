import nacl from 'tweetnacl';
import { boxKeyFromSharedSecret } from './device-key.js';
import { constantTimeEqual, fromHex } from './encoding.js';
import type { BoxKeyPair } from './identity.js';
import { KEY_BYTES } from './key-sizes.js';
import type { RandomBytes } from './random.js';

/**
 * The X25519 function, behind a port so that each runtime uses its fastest one: `node:crypto`
 * (OpenSSL) on the host, tweetnacl where nothing else is at hand. A program chooses one at start
 * (after `checkX25519` passed) and hands it to the handshake, the one-shot call and the pairing
 * code; the bytes on the wire are the same whichever does the work (the protocol vectors say so).
 *
 * Both calls are synchronous: the handshake is a pure function of its inputs and runs inside a
 * message handler. tweetnacl takes about 0.5 ms an operation, OpenSSL about 0.03 ms.
 */
export interface X25519 {
  /** For logs and benches: which implementation this is. */
  readonly name: string;
  /** The key pair whose secret key is `random(32)`: the secret comes from the caller's randomness. */
  readonly keyPair: (random: RandomBytes) => BoxKeyPair;
  /**
   * The raw X25519 output of a secret and a public key. All zero for a low-order public key, as
   * tweetnacl gives it, so that every caller can refuse that case in one way.
   */
  readonly scalarMult: (secretKey: Uint8Array, publicKey: Uint8Array) => Uint8Array;
}

export const tweetnaclX25519: X25519 = {
  name: 'tweetnacl',
  keyPair: (random) => nacl.box.keyPair.fromSecretKey(random(KEY_BYTES)),
  scalarMult: (secretKey, publicKey) => nacl.scalarMult(secretKey, publicKey),
};

/** The box key of `nacl.box.before(publicKey, secretKey)`, computed with `x25519`. */
export function boxBefore(x25519: X25519, publicKey: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return boxKeyFromSharedSecret(x25519.scalarMult(secretKey, publicKey));
}

/** RFC 7748 §6.1: Alice's and Bob's keys and their shared secret. */
const VECTOR = {
  aliceSecret: '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
  alicePublic: '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
  bobPublic: 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
  shared: '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742',
};

/**
 * Whether an implementation gives RFC 7748's answers, and zeros for a low-order point: checked
 * once before a program chooses it, so that a runtime whose X25519 differs is never used.
 */
export function checkX25519(x25519: X25519): boolean {
  try {
    const hex = (text: string) => fromHex(text)!;
    const pair = x25519.keyPair(() => hex(VECTOR.aliceSecret));
    if (!constantTimeEqual(pair.publicKey, hex(VECTOR.alicePublic))) return false;
    if (!constantTimeEqual(pair.secretKey, hex(VECTOR.aliceSecret))) return false;
    const shared = x25519.scalarMult(hex(VECTOR.aliceSecret), hex(VECTOR.bobPublic));
    if (!constantTimeEqual(shared, hex(VECTOR.shared))) return false;
    const weak = x25519.scalarMult(hex(VECTOR.aliceSecret), new Uint8Array(KEY_BYTES));
    return constantTimeEqual(weak, new Uint8Array(KEY_BYTES));
  } catch {
    return false;
  }
}
