import { boxKeyPairFromSecret, fromBase64UrlExact, staticBoxKey, toBase64Url } from '@tether/shared-protocol';
import { seededRandom } from '@tether/shared-protocol/testing';
import nacl from 'tweetnacl';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { HostRecordSchema } from '../data/records.js';
import { deviceKeyFor, makeDeviceKey } from './device-key.js';

const random = seededRandom('device key');
const host = boxKeyPairFromSecret(random(32));
const hostBoxPublicKey = toBase64Url(host.publicKey);

/** Node's WebCrypto has X25519 as the browsers do; here the key is made extractable only to
 * learn its secret and compare with tweetnacl. */
async function extractableKey() {
  const pair = await crypto.subtle.generateKey({ name: 'X25519' }, true, ['deriveBits']);
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  const secret = fromBase64UrlExact(jwk.d!, 32)!;
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return { privateKey: pair.privateKey, publicKey, secret };
}

const record = {
  hostId: 'HHHHHHHHHHHHHHHHHHHHHA',
  name: 'laptop',
  apiBase: 'https://laptop.example:7420',
  deviceId: 'DDDDDDDDDDDDDDDDDDDDDA',
  hostBoxPublicKey,
  hostSignPublicKey: hostBoxPublicKey,
  scopes: ['watch'],
  pairedAt: 1,
  lastSeenAt: null,
  recentFolders: [],
};

describe('device keys', () => {
  it('makes a non-extractable key with WebCrypto, and a raw one without', async () => {
    const made = await makeDeviceKey(crypto.subtle, random);
    expect(made.record.deviceKey?.privateKey.extractable).toBe(false);
    expect(made.record.deviceKey?.publicKey).toBe(toBase64Url(made.publicKey));
    await expect(crypto.subtle.exportKey('jwk', made.record.deviceKey!.privateKey)).rejects.toThrow();
    const raw = await makeDeviceKey(undefined, random);
    expect(raw.record.deviceKey).toBeUndefined();
    expect(boxKeyPairFromSecret(fromBase64UrlExact(raw.record.deviceSecretKey!, 32)!).publicKey).toEqual(raw.publicKey);
  });

  it('falls back to the raw key when WebCrypto has no X25519', async () => {
    const noX25519 = { generateKey: () => Promise.reject(new DOMException('no', 'NotSupportedError')) };
    const made = await makeDeviceKey(noX25519 as unknown as SubtleCrypto, random);
    expect(made.record.deviceSecretKey).toHaveLength(43);
  });

  it('computes the static box key from WebCrypto: the same as nacl.box.before', async () => {
    const key = await extractableKey();
    const deviceKey = await deviceKeyFor(
      { deviceKey: { privateKey: key.privateKey, publicKey: toBase64Url(key.publicKey) }, hostBoxPublicKey },
      crypto.subtle,
    );
    expect(deviceKey.publicKey).toEqual(key.publicKey);
    expect(staticBoxKey(deviceKey, host.publicKey)).toEqual(nacl.box.before(host.publicKey, key.secret));
    // The raw form gives the same box key from the same secret.
    const raw = await deviceKeyFor({ deviceSecretKey: toBase64Url(key.secret), hostBoxPublicKey }, undefined);
    expect(staticBoxKey(raw, host.publicKey)).toEqual(staticBoxKey(deviceKey, host.publicKey));
  });

  it('decodes both forms of the host record, and refuses a record with neither or both', async () => {
    const made = await makeDeviceKey(crypto.subtle, random);
    const extractable = await extractableKey();
    const decodes = (fields: object) => v.safeParse(HostRecordSchema, { ...record, ...fields }).success;
    expect(decodes(made.record)).toBe(true);
    expect(decodes({ deviceSecretKey: toBase64Url(random(32)) })).toBe(true);
    expect(decodes({})).toBe(false);
    expect(decodes({ ...made.record, deviceSecretKey: toBase64Url(random(32)) })).toBe(false);
    // An extractable key, or something that only looks like a key, is not taken.
    expect(
      decodes({ deviceKey: { privateKey: extractable.privateKey, publicKey: toBase64Url(extractable.publicKey) } }),
    ).toBe(false);
    expect(
      decodes({ deviceKey: { privateKey: { type: 'private' }, publicKey: made.record.deviceKey!.publicKey } }),
    ).toBe(false);
  });
});
