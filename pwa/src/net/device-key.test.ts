import type { Result } from '@tether/shared-protocol';
import { boxKeyPairFromSecret, fromBase64UrlExact, staticBoxKey, toBase64Url } from '@tether/shared-protocol';
import { seededRandom } from '@tether/shared-protocol/testing';
import nacl from 'tweetnacl';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { AppDb } from '../data/app-db.js';
import type { IdbStandIn, StandInMode } from '../data/idb-stand-in.js';
import { installIdbStandIn } from '../data/idb-stand-in.js';
import { HostRecordSchema } from '../data/records.js';
import type { NotKept } from '../data/storage-health.js';
import type { NewDeviceKey } from './device-key.js';
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

let standIn: IdbStandIn | undefined;
afterEach(() => {
  standIn?.restore();
  standIn = undefined;
});

/** A key made against a real (stand-in) IndexedDB that stores as `mode` says. */
async function madeWith(mode: StandInMode, subtle: SubtleCrypto | undefined = crypto.subtle) {
  standIn = installIdbStandIn(mode);
  const db = new AppDb({ factory: standIn.factory });
  return makeDeviceKey(subtle, (value) => db.roundTrip(value), random);
}

function made(result: Result<NewDeviceKey, NotKept>): NewDeviceKey {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** Node's own structured clone as the storage: keeps what Chromium keeps. */
const keepsAll = (value: unknown) => Promise.resolve(structuredClone(value));

describe('device keys', () => {
  it('keeps a non-extractable WebCrypto key where the storage gives it back as it is', async () => {
    const key = made(await madeWith('as-is'));
    expect(key.record.keyStorage).toBe('webcrypto');
    expect(key.record.deviceKey?.privateKey.extractable).toBe(false);
    expect(key.record.deviceKey?.publicKey).toBe(toBase64Url(key.publicKey));
    await expect(crypto.subtle.exportKey('jwk', key.record.deviceKey!.privateKey)).rejects.toThrow();
  });

  it.each(['webkit', 'webkit-null'] as const)(
    'wraps the key under a non-extractable AES-GCM key where the storage cannot keep an X25519 key (%s)',
    async (mode) => {
      const key = made(await madeWith(mode));
      expect(key.record.keyStorage).toBe('wrapped');
      expect(key.record.deviceKey).toBeUndefined();
      expect(key.record.deviceSecretKey).toBeUndefined();
      const wrapped = key.record.deviceWrappedKey!;
      expect(wrapped.publicKey).toBe(toBase64Url(key.publicKey));
      expect(wrapped.wrappingKey.algorithm.name).toBe('AES-GCM');
      expect(wrapped.wrappingKey.extractable).toBe(false);
      await expect(crypto.subtle.exportKey('raw', wrapped.wrappingKey)).rejects.toThrow();
      // Unwrapped at each start into a key that cannot be exported either.
      const deviceKey = await deviceKeyFor({ ...key.record, hostBoxPublicKey }, crypto.subtle);
      expect(deviceKey.publicKey).toEqual(key.publicKey);
      // The same box key as nacl.box.before with the secret inside the wrap.
      const inside = await crypto.subtle.unwrapKey(
        'pkcs8',
        new Uint8Array(fromBase64UrlExact(wrapped.wrapped, 64)!),
        wrapped.wrappingKey,
        { name: 'AES-GCM', iv: new Uint8Array(fromBase64UrlExact(wrapped.iv, 12)!) },
        { name: 'X25519' },
        true,
        ['deriveBits'],
      );
      const secret = fromBase64UrlExact((await crypto.subtle.exportKey('jwk', inside)).d!, 32)!;
      expect(staticBoxKey(deviceKey, host.publicKey)).toEqual(nacl.box.before(host.publicKey, secret));
    },
  );

  it('refuses a wrapped key that was changed: the AES-GCM tag no longer matches', async () => {
    const key = made(await madeWith('webkit'));
    const wrapped = key.record.deviceWrappedKey!;
    const bytes = fromBase64UrlExact(wrapped.wrapped, 64)!;
    bytes[10]! ^= 1;
    const changed = { ...key.record, deviceWrappedKey: { ...wrapped, wrapped: toBase64Url(bytes) } };
    await expect(deviceKeyFor({ ...changed, hostBoxPublicKey }, crypto.subtle)).rejects.toThrow();
  });

  it('falls back to the raw key without WebCrypto, without its X25519, or where it keeps no CryptoKey', async () => {
    const raw = made(await makeDeviceKey(undefined, keepsAll, random));
    expect(raw.record.keyStorage).toBe('raw');
    expect(boxKeyPairFromSecret(fromBase64UrlExact(raw.record.deviceSecretKey!, 32)!).publicKey).toEqual(raw.publicKey);
    const noX25519 = { generateKey: () => Promise.reject(new DOMException('no', 'NotSupportedError')) };
    expect(made(await makeDeviceKey(noX25519 as unknown as SubtleCrypto, keepsAll, random)).record.keyStorage).toBe(
      'raw',
    );
    const stringsOnly = (value: unknown) => Promise.resolve(typeof value === 'string' ? value : null);
    expect(made(await makeDeviceKey(crypto.subtle, stringsOnly, random)).record.keyStorage).toBe('raw');
  });

  it('makes no key where the storage keeps nothing: a pairing would not outlive the page', async () => {
    const result = await madeWith('refuse');
    expect(!result.ok && result.error.code).toBe('storage-failed');
    const nothing = await makeDeviceKey(crypto.subtle, () => Promise.resolve(undefined), random);
    expect(nothing.ok).toBe(false);
  });

  it('computes the static box key from WebCrypto: the same as nacl.box.before', async () => {
    const key = await extractableKey();
    const deviceKey = await deviceKeyFor(
      {
        keyStorage: 'webcrypto',
        deviceKey: { privateKey: key.privateKey, publicKey: toBase64Url(key.publicKey) },
        hostBoxPublicKey,
      },
      crypto.subtle,
    );
    expect(deviceKey.publicKey).toEqual(key.publicKey);
    expect(staticBoxKey(deviceKey, host.publicKey)).toEqual(nacl.box.before(host.publicKey, key.secret));
    // The raw form gives the same box key from the same secret.
    const raw = await deviceKeyFor(
      { keyStorage: 'raw', deviceSecretKey: toBase64Url(key.secret), hostBoxPublicKey },
      undefined,
    );
    expect(staticBoxKey(raw, host.publicKey)).toEqual(staticBoxKey(deviceKey, host.publicKey));
  });

  it('decodes every form of the host record, and refuses a record with none, two, or the wrong name', async () => {
    const webcrypto = made(await makeDeviceKey(crypto.subtle, keepsAll, random)).record;
    const wrapped = made(await madeWith('webkit')).record;
    const extractable = await extractableKey();
    const decoded = (fields: object) => v.safeParse(HostRecordSchema, { ...record, ...fields });
    const decodes = (fields: object) => decoded(fields).success;
    expect(decodes(webcrypto)).toBe(true);
    expect(decodes(wrapped)).toBe(true);
    expect(decodes({ keyStorage: 'raw', deviceSecretKey: toBase64Url(random(32)) })).toBe(true);
    expect(decodes({})).toBe(false);
    expect(decodes({ ...webcrypto, deviceSecretKey: toBase64Url(random(32)) })).toBe(false);
    expect(decodes({ ...wrapped, deviceKey: webcrypto.deviceKey })).toBe(false);
    expect(decodes({ ...webcrypto, keyStorage: 'wrapped' })).toBe(false);
    expect(decodes({ ...wrapped, keyStorage: 'raw' })).toBe(false);
    // Records from before keyStorage was kept: named by the key they hold.
    const { keyStorage: _w, ...oldWebCrypto } = webcrypto;
    const old = decoded(oldWebCrypto);
    expect(old.success && old.output.keyStorage).toBe('webcrypto');
    const oldRaw = decoded({ deviceSecretKey: toBase64Url(random(32)) });
    expect(oldRaw.success && oldRaw.output.keyStorage).toBe('raw');
    // An extractable key, or something that only looks like a key, is not taken.
    expect(
      decodes({ deviceKey: { privateKey: extractable.privateKey, publicKey: toBase64Url(extractable.publicKey) } }),
    ).toBe(false);
    expect(decodes({ deviceKey: { privateKey: { type: 'private' }, publicKey: webcrypto.deviceKey!.publicKey } })).toBe(
      false,
    );
    const exportable = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, [
      'wrapKey',
      'unwrapKey',
    ]);
    const w = wrapped.deviceWrappedKey!;
    expect(decodes({ ...wrapped, deviceWrappedKey: { ...w, wrappingKey: exportable } })).toBe(false);
    expect(decodes({ ...wrapped, deviceWrappedKey: { ...w, iv: 'short' } })).toBe(false);
  });
});
