import type { DeviceKey, RandomBytes, Result } from '@tether/shared-protocol';
import {
  KEY_BYTES,
  boxKeyFromSharedSecret,
  boxKeyPairFromSecret,
  fromBase64Url,
  fromBase64UrlExact,
  generateBoxKeyPair,
  ok,
  precomputedStaticKey,
  secureRandom,
  toBase64Url,
} from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';
import type { NotKept } from '../data/storage-health.js';

/**
 * This device's X25519 key for a host, made at pairing and kept in IndexedDB, in the strongest of
 * three ways that this browser's storage really keeps (tried with a write and a read back):
 *
 * - `webcrypto`: the secret half is a non-extractable `CryptoKey` (Chromium, Firefox): IndexedDB
 *   keeps it by structured clone, and no script, the app's own included, can ever read its bytes.
 * - `wrapped`: WebKit (Safari) can make and use X25519 keys but not store them (structured clone
 *   refuses, and IndexedDB gives back null). There the key is made extractable, wrapped at once
 *   (`wrapKey`, PKCS #8, AES-GCM: its bytes never reach script) under a fresh non-extractable
 *   AES-GCM key, which WebKit stores, and only the wrapping key and the wrapped bytes are kept. At
 *   start `unwrapKey` turns them back into a non-extractable X25519 key, in memory only.
 * - `raw`: where WebCrypto or its X25519 is missing (plain HTTP is not a secure context: no
 *   `crypto.subtle`), the key is made with tweetnacl and its secret stored as base64url.
 *
 * The choice is recorded in the host record (`keyStorage`) and described in docs/security.md.
 * The app asks WebCrypto once per host for the raw X25519 output with the host's key and turns it
 * into the static box key (HSalsa20, as `nacl.box.before` does), kept only in memory.
 */

export type DeviceKeyRecord = Pick<HostRecord, 'keyStorage' | 'deviceKey' | 'deviceWrappedKey' | 'deviceSecretKey'>;

export interface NewDeviceKey {
  publicKey: Uint8Array;
  /** The fields of the host record that hold it. */
  record: DeviceKeyRecord;
}

/**
 * Writes a value to the app's storage and reads it back (`AppDb.roundTrip`): what the read gave,
 * or undefined when the write or the read failed.
 */
export type StorageRoundTrip = (value: unknown) => Promise<unknown>;

/** WebCrypto's X25519 algorithm: key agreement only (deriveBits), no signing. */
const X25519 = { name: 'X25519' } as const;
/** The wrapping key: AES-256-GCM, whose 16-byte tag makes any change to the wrapped key fail. */
const AES_GCM_256 = { name: 'AES-GCM', length: 256 } as const;
const IV_BYTES = 12;

export { platformSubtle } from './platform-subtle.js';

/**
 * Makes a device key kept in the strongest way the browser's storage gives back as written.
 * Fails when the storage keeps nothing at all (a private window that refuses IndexedDB, a full
 * disk): a pairing then would be forgotten as soon as the page closes.
 */
export async function makeDeviceKey(
  subtle: SubtleCrypto | undefined,
  roundTrip: StorageRoundTrip,
  random: RandomBytes = secureRandom,
): Promise<Result<NewDeviceKey, NotKept>> {
  const marker = toBase64Url(random(16));
  if ((await roundTrip(marker)) !== marker) {
    return { ok: false, error: { code: 'storage-failed', message: 'this browser keeps nothing for this page' } };
  }
  if (subtle) {
    const made = await x25519(subtle);
    if (made) {
      const { pair, publicKey } = made;
      if (sameKey(await roundTrip(pair.privateKey), pair.privateKey)) {
        return ok({
          publicKey,
          record: {
            keyStorage: 'webcrypto',
            deviceKey: { privateKey: pair.privateKey, publicKey: toBase64Url(publicKey) },
          },
        });
      }
      const wrapped = await wrappedKey(subtle, roundTrip, random);
      if (wrapped) return ok(wrapped);
    }
  }
  const pair = generateBoxKeyPair(random);
  return ok({ publicKey: pair.publicKey, record: { keyStorage: 'raw', deviceSecretKey: toBase64Url(pair.secretKey) } });
}

/** A non-extractable X25519 key pair, or undefined when this WebCrypto has no X25519. */
async function x25519(subtle: SubtleCrypto): Promise<{ pair: CryptoKeyPair; publicKey: Uint8Array } | undefined> {
  try {
    const pair = await subtle.generateKey(X25519, false, ['deriveBits']);
    const publicKey = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
    return publicKey.length === KEY_BYTES && !pair.privateKey.extractable ? { pair, publicKey } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An X25519 key wrapped under a non-extractable AES-GCM key, when the storage keeps such a key
 * (and the key unwraps again, as it will at each start); undefined otherwise.
 */
async function wrappedKey(
  subtle: SubtleCrypto,
  roundTrip: StorageRoundTrip,
  random: RandomBytes,
): Promise<NewDeviceKey | undefined> {
  try {
    const wrappingKey = await subtle.generateKey(AES_GCM_256, false, ['wrapKey', 'unwrapKey']);
    if (!sameKey(await roundTrip(wrappingKey), wrappingKey)) return undefined;
    const pair = await subtle.generateKey(X25519, true, ['deriveBits']);
    const publicKey = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
    // Used once, under a key made for this one wrap: never an IV reused with the same key.
    const iv = random(IV_BYTES);
    const wrapped = await subtle.wrapKey('pkcs8', pair.privateKey, wrappingKey, {
      name: 'AES-GCM',
      iv: new Uint8Array(iv),
    });
    const deviceWrappedKey = {
      wrappingKey,
      iv: toBase64Url(iv),
      wrapped: toBase64Url(new Uint8Array(wrapped)),
      publicKey: toBase64Url(publicKey),
    };
    await unwrap(subtle, deviceWrappedKey);
    return { publicKey, record: { keyStorage: 'wrapped', deviceWrappedKey } };
  } catch {
    return undefined;
  }
}

/** Whether `back` (read from storage) is a CryptoKey like `key`: nothing lost on the way. */
function sameKey(back: unknown, key: CryptoKey): boolean {
  return (
    typeof CryptoKey !== 'undefined' &&
    back instanceof CryptoKey &&
    back.type === key.type &&
    back.algorithm.name === key.algorithm.name &&
    back.extractable === key.extractable &&
    back.usages.length === key.usages.length &&
    key.usages.every((usage) => back.usages.includes(usage))
  );
}

function unwrap(subtle: SubtleCrypto, key: NonNullable<HostRecord['deviceWrappedKey']>): Promise<CryptoKey> {
  const iv = fromBase64UrlExact(key.iv, IV_BYTES);
  const wrapped = fromBase64Url(key.wrapped);
  if (!iv || !wrapped) throw new Error('host record holds an invalid wrapped key'); // decoded by schema: a bug
  return subtle.unwrapKey(
    'pkcs8',
    new Uint8Array(wrapped),
    key.wrappingKey,
    { name: 'AES-GCM', iv: new Uint8Array(iv) },
    X25519,
    false,
    ['deriveBits'],
  );
}

/**
 * The device key for connecting to the host of `record`: for a WebCrypto key (kept as it is, or
 * unwrapped now), a static key holding the box key with that host, computed now (once per host,
 * at app start) and kept in memory only.
 */
export async function deviceKeyFor(
  record: DeviceKeyRecord & Pick<HostRecord, 'hostBoxPublicKey'>,
  subtle: SubtleCrypto | undefined,
): Promise<DeviceKey> {
  const hostPublicKey = fromBase64UrlExact(record.hostBoxPublicKey, KEY_BYTES);
  if (!hostPublicKey) throw new Error('host record holds an invalid host key'); // decoded by schema: a bug
  if (record.keyStorage === 'raw') {
    const secret = record.deviceSecretKey && fromBase64UrlExact(record.deviceSecretKey, KEY_BYTES);
    if (!secret) throw new Error('host record holds no device key'); // decoded by schema: a bug
    return boxKeyPairFromSecret(secret);
  }
  if (!subtle) throw new Error('this device key needs WebCrypto, which this page does not have');
  const held = record.keyStorage === 'webcrypto' ? record.deviceKey : record.deviceWrappedKey;
  if (!held) throw new Error('host record holds no device key'); // decoded by schema: a bug
  const privateKey = 'privateKey' in held ? held.privateKey : await unwrap(subtle, held);
  const publicKey = fromBase64UrlExact(held.publicKey, KEY_BYTES);
  if (!publicKey) throw new Error('host record holds an invalid device key'); // decoded by schema: a bug
  const host = await subtle.importKey('raw', new Uint8Array(hostPublicKey), X25519, true, []);
  const shared = new Uint8Array(await subtle.deriveBits({ name: 'X25519', public: host }, privateKey, KEY_BYTES * 8));
  return precomputedStaticKey(publicKey, hostPublicKey, boxKeyFromSharedSecret(shared));
}
