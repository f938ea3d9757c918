import { describe, expect, it } from 'vitest';
import {
  decodeHostIdentity,
  encodeHostIdentity,
  fingerprint,
  generateDeviceId,
  generateHostIdentity,
  hostIdFromSignKey,
} from './identity.js';
import { seededRandom } from './testing/seeded-random.js';

describe('identity', () => {
  it('round-trips the host key file and rederives the host id', () => {
    const identity = generateHostIdentity(seededRandom('identity'));
    expect(identity.hostId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(identity.hostId).toBe(hostIdFromSignKey(identity.sign.publicKey));
    const file = JSON.parse(JSON.stringify(encodeHostIdentity(identity))) as unknown;
    const decoded = decodeHostIdentity(file);
    expect(decoded.ok && decoded.value).toEqual(identity);
  });

  it('refuses a damaged key file', () => {
    const file = encodeHostIdentity(generateHostIdentity(seededRandom('identity')));
    expect(decodeHostIdentity({ ...file, version: 2 }).ok).toBe(false);
    expect(decodeHostIdentity({ ...file, boxSecretKey: '!'.repeat(43) }).ok).toBe(false);
    const other = encodeHostIdentity(generateHostIdentity(seededRandom('other')));
    const mixed = { ...file, signSecretKey: file.signSecretKey.slice(0, 43) + other.signSecretKey.slice(43) };
    const r = decodeHostIdentity(mixed);
    expect(!r.ok && r.error.code).toBe('malformed');
    expect(decodeHostIdentity(null).ok).toBe(false);
  });

  it('formats fingerprints and device ids', () => {
    const identity = generateHostIdentity(seededRandom('fp'));
    expect(fingerprint(identity.box.publicKey)).toMatch(/^[0-9a-f]{4}(-[0-9a-f]{4}){4}$/);
    expect(generateDeviceId(seededRandom('d'))).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
