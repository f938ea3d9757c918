import type { DeviceKey, RandomBytes } from '@tether/shared-protocol';
import {
  KEY_BYTES,
  boxKeyFromSharedSecret,
  boxKeyPairFromSecret,
  fromBase64UrlExact,
  generateBoxKeyPair,
  precomputedStaticKey,
  secureRandom,
  toBase64Url,
} from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';

/**
 * This device's X25519 key for a host, made at pairing and kept in IndexedDB.
 *
 * Where the browser offers X25519 in WebCrypto (a secure context in current Chromium, Safari 17+,
 * Firefox 130+), the secret half is a non-extractable `CryptoKey`: IndexedDB keeps it by
 * structured clone, and no script, the app's own included, can ever read its bytes. The app asks
 * WebCrypto once per host for the raw X25519 output with the host's key and turns it into the
 * static box key (HSalsa20, as `nacl.box.before` does), kept only in memory.
 *
 * Elsewhere (plain HTTP is not a secure context: no `crypto.subtle`) the key is made with
 * tweetnacl and its secret stored as base64url: the fallback, named in docs/security.md.
 */

export type DeviceKeyRecord = Pick<HostRecord, 'deviceSecretKey' | 'deviceKey'>;

export interface NewDeviceKey {
  publicKey: Uint8Array;
  /** The fields of the host record that hold it. */
  record: DeviceKeyRecord;
}

/** WebCrypto's X25519 algorithm: key agreement only (deriveBits), no signing. */
const X25519 = { name: 'X25519' } as const;

/** The platform's WebCrypto when it is there at all (not on plain HTTP). */
export function platformSubtle(): SubtleCrypto | undefined {
  return typeof crypto !== 'undefined' && crypto.subtle !== undefined ? crypto.subtle : undefined;
}

/** Makes a device key: non-extractable in WebCrypto when the browser can, raw otherwise. */
export async function makeDeviceKey(
  subtle: SubtleCrypto | undefined,
  random: RandomBytes = secureRandom,
): Promise<NewDeviceKey> {
  if (subtle) {
    try {
      const pair = await subtle.generateKey(X25519, false, ['deriveBits']);
      const publicKey = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
      if (publicKey.length === KEY_BYTES && !pair.privateKey.extractable) {
        return { publicKey, record: { deviceKey: { privateKey: pair.privateKey, publicKey: toBase64Url(publicKey) } } };
      }
    } catch {
      // No X25519 in this browser's WebCrypto: the fallback below.
    }
  }
  const pair = generateBoxKeyPair(random);
  return { publicKey: pair.publicKey, record: { deviceSecretKey: toBase64Url(pair.secretKey) } };
}

/**
 * The device key for connecting to the host of `record`: for a WebCrypto key, a static key holding
 * the box key with that host, computed now (once per host, at app start) and kept in memory only.
 */
export async function deviceKeyFor(
  record: DeviceKeyRecord & Pick<HostRecord, 'hostBoxPublicKey'>,
  subtle: SubtleCrypto | undefined,
): Promise<DeviceKey> {
  const hostPublicKey = fromBase64UrlExact(record.hostBoxPublicKey, KEY_BYTES);
  if (!hostPublicKey) throw new Error('host record holds an invalid host key'); // decoded by schema: a bug
  if (record.deviceKey) {
    if (!subtle) throw new Error('this device key needs WebCrypto, which this page does not have');
    const publicKey = fromBase64UrlExact(record.deviceKey.publicKey, KEY_BYTES);
    if (!publicKey) throw new Error('host record holds an invalid device key'); // decoded by schema: a bug
    const host = await subtle.importKey('raw', new Uint8Array(hostPublicKey), X25519, true, []);
    const shared = new Uint8Array(
      await subtle.deriveBits({ name: 'X25519', public: host }, record.deviceKey.privateKey, KEY_BYTES * 8),
    );
    return precomputedStaticKey(publicKey, hostPublicKey, boxKeyFromSharedSecret(shared));
  }
  const secret = record.deviceSecretKey && fromBase64UrlExact(record.deviceSecretKey, KEY_BYTES);
  if (!secret) throw new Error('host record holds no device key'); // decoded by schema: a bug
  return boxKeyPairFromSecret(secret);
}
