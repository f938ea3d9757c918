import type { KeyObject } from 'node:crypto';
import { createPrivateKey, createPublicKey, diffieHellman } from 'node:crypto';
import type { BoxKeyPair, X25519 } from '@tether/shared-protocol';
import { checkX25519, constantTimeEqual, tweetnaclX25519 } from '@tether/shared-protocol';

/**
 * X25519 from OpenSSL through `node:crypto`: about 0.03 ms an operation against tweetnacl's 0.5 ms
 * (host/bench/handshake.ts). Keys cross as JWK, because importing DER goes through OpenSSL's
 * decoder and costs more than the multiplication (0.6 ms). A private JWK must carry `x`, which
 * Node does not use to build the key (it takes `d` only); a placeholder stands in when the public
 * key is not known yet, and `checkX25519` at start proves the results right on this runtime.
 */

const PLACEHOLDER_X = Buffer.alloc(32).toString('base64url');
const ZERO = new Uint8Array(32);

function privateKey(secretKey: Uint8Array, publicKey?: Uint8Array): KeyObject {
  const d = Buffer.from(secretKey.buffer, secretKey.byteOffset, secretKey.byteLength).toString('base64url');
  const x = publicKey ? Buffer.from(publicKey).toString('base64url') : PLACEHOLDER_X;
  return createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', d, x }, format: 'jwk' });
}

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const x = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });
}

/**
 * The few secret keys imported last, each with a copy of its bytes: within a handshake the host's
 * static key and the fresh ephemeral key are each used more than once, and the static key again
 * in the next handshake. A copy (not the caller's array, which may change) decides a match; four
 * entries, oldest dropped first.
 */
const CACHED_KEYS = 4;
const recent: { bytes: Uint8Array; key: KeyObject }[] = [];

function remember(secretKey: Uint8Array, key: KeyObject): void {
  if (recent.length >= CACHED_KEYS) recent.shift();
  recent.push({ bytes: secretKey.slice(), key });
}

function cachedPrivateKey(secretKey: Uint8Array): KeyObject {
  for (let i = recent.length - 1; i >= 0; i--) {
    const entry = recent[i]!;
    if (constantTimeEqual(entry.bytes, secretKey)) return entry.key;
  }
  const key = privateKey(secretKey);
  remember(secretKey, key);
  return key;
}

export const nodeX25519: X25519 = {
  name: 'node:crypto',
  keyPair: (random): BoxKeyPair => {
    const secretKey = random(32);
    const key = privateKey(secretKey);
    const x = createPublicKey(key).export({ format: 'jwk' }).x;
    if (typeof x !== 'string') throw new Error('node:crypto gave no X25519 public key');
    remember(secretKey, key);
    return { publicKey: new Uint8Array(Buffer.from(x, 'base64url')), secretKey };
  },
  scalarMult: (secretKey, publicKey) => {
    if (secretKey.length !== 32 || publicKey.length !== 32) throw new Error('X25519 keys are 32 bytes');
    try {
      const shared = diffieHellman({ privateKey: cachedPrivateKey(secretKey), publicKey: publicKeyObject(publicKey) });
      return new Uint8Array(shared.buffer, shared.byteOffset, shared.byteLength);
    } catch {
      // OpenSSL refuses an all-zero result (a low-order public key); tweetnacl returns it, and
      // every caller refuses it the same way.
      return ZERO.slice();
    }
  },
};

/** The X25519 this process uses: OpenSSL's when it gives RFC 7748's answers here, else tweetnacl's. */
export function chooseX25519(): X25519 {
  return checkX25519(nodeX25519) ? nodeX25519 : tweetnaclX25519;
}
