import nacl from 'tweetnacl';
import { constantTimeEqual } from './encoding.js';
import { BugError } from './errors.js';
import type { BoxKeyPair } from './identity.js';
import { KEY_BYTES } from './key-sizes.js';

/**
 * What a device needs of its static X25519 key to open connections and make one-shot calls: its
 * public half, and the static–static box key with a host (`nacl.box.before(host, device)`). A
 * key that cannot be exported (a WebCrypto `CryptoKey` made non-extractable) offers exactly this:
 * the app computes the box key once per host at start and keeps it only in memory.
 */
export interface DeviceStaticKey {
  readonly publicKey: Uint8Array;
  /** The box key with this host; throws (a bug) for a host it was not made for. */
  boxKey(hostPublicKey: Uint8Array): Uint8Array;
}

/** Either form a device may hold its key in: the raw pair (Node, the fallback), or a static key. */
export type DeviceKey = BoxKeyPair | DeviceStaticKey;

/**
 * The static–static box key of a device key with a host, whatever form the device key has.
 * `scalarMult` is the X25519 the program chose (x25519.ts); tweetnacl's unless given.
 */
export function staticBoxKey(
  device: DeviceKey,
  hostPublicKey: Uint8Array,
  scalarMult: (secretKey: Uint8Array, publicKey: Uint8Array) => Uint8Array = nacl.scalarMult,
): Uint8Array {
  return 'secretKey' in device
    ? boxKeyFromSharedSecret(scalarMult(device.secretKey, hostPublicKey))
    : device.boxKey(hostPublicKey);
}

/** A DeviceStaticKey for one host from a box key computed elsewhere (e.g. from WebCrypto). */
export function precomputedStaticKey(
  publicKey: Uint8Array,
  hostPublicKey: Uint8Array,
  boxKey: Uint8Array,
): DeviceStaticKey {
  if (boxKey.length !== KEY_BYTES) throw new BugError('a box key is 32 bytes');
  const host = hostPublicKey.slice();
  const key = boxKey.slice();
  return {
    publicKey: publicKey.slice(),
    boxKey: (other) => {
      if (!constantTimeEqual(other, host)) throw new BugError('this static key was made for another host');
      return key;
    },
  };
}

/** The HSalsa20 constant "expand 32-byte k", as NaCl's crypto_box_beforenm uses it. */
const SIGMA = Uint8Array.from([101, 120, 112, 97, 110, 100, 32, 51, 50, 45, 98, 121, 116, 101, 32, 107]);

/** tweetnacl 1.0.3 exposes its primitives under `lowlevel` at run time, though not in its types. */
interface NaclLowLevel {
  crypto_core_hsalsa20(out: Uint8Array, input: Uint8Array, key: Uint8Array, constant: Uint8Array): number;
}

/**
 * The box key from a raw X25519 output: HSalsa20 keyed by the shared point, over 16 zero bytes,
 * exactly as `nacl.box.before` does after its scalar multiplication. Lets a device whose key lives
 * in WebCrypto (`deriveBits` gives the raw X25519 output) speak NaCl boxes.
 */
export function boxKeyFromSharedSecret(shared: Uint8Array): Uint8Array {
  if (shared.length !== KEY_BYTES) throw new BugError('an X25519 output is 32 bytes');
  const lowlevel = (nacl as unknown as { lowlevel: NaclLowLevel }).lowlevel;
  const out = new Uint8Array(KEY_BYTES);
  lowlevel.crypto_core_hsalsa20(out, new Uint8Array(16), shared, SIGMA);
  return out;
}
