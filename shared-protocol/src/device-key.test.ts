import fc from 'fast-check';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { boxKeyFromSharedSecret, precomputedStaticKey, staticBoxKey } from './device-key.js';
import { BugError } from './errors.js';
import { HandshakeInitiator, HandshakeResponder } from './handshake.js';
import { boxKeyPairFromSecret, generateDeviceId } from './identity.js';
import { openCall, sealCall } from './one-shot.js';
import { ReplayCache } from './replay-cache.js';
import { ManualClock } from './testing/manual-clock.js';
import { scriptedRandom } from './testing/scripted-random.js';
import { seededRandom } from './testing/seeded-random.js';

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe('device static keys', () => {
  it('HSalsa20 of the raw X25519 output is nacl.box.before', () => {
    fc.assert(
      fc.property(bytes32, bytes32, (deviceSecret, hostSecret) => {
        const host = boxKeyPairFromSecret(hostSecret);
        const shared = nacl.scalarMult(deviceSecret, host.publicKey);
        expect(boxKeyFromSharedSecret(shared)).toEqual(nacl.box.before(host.publicKey, deviceSecret));
      }),
      { numRuns: 50 },
    );
  });

  it('a precomputed key serves only the host it was made for', () => {
    const r = seededRandom('static key hosts');
    const device = boxKeyPairFromSecret(r(32));
    const host = boxKeyPairFromSecret(r(32));
    const key = precomputedStaticKey(
      device.publicKey,
      host.publicKey,
      nacl.box.before(host.publicKey, device.secretKey),
    );
    expect(staticBoxKey(key, host.publicKey)).toEqual(staticBoxKey(device, host.publicKey));
    expect(() => key.boxKey(boxKeyPairFromSecret(r(32)).publicKey)).toThrow(BugError);
    expect(() => precomputedStaticKey(device.publicKey, host.publicKey, r(16))).toThrow(BugError);
  });

  it('a handshake and a one-shot call made with a static key are byte for byte those of the key pair', () => {
    const r = seededRandom('static key handshake');
    const clock = new ManualClock(1_767_225_600_000);
    const device = boxKeyPairFromSecret(r(32));
    const host = boxKeyPairFromSecret(r(32));
    const deviceId = generateDeviceId(r);
    const staticKey = precomputedStaticKey(
      device.publicKey,
      host.publicKey,
      boxKeyFromSharedSecret(nacl.scalarMult(device.secretKey, host.publicKey)),
    );
    const script = [r(32), r(24)];
    const hello = (deviceKeys: typeof device | typeof staticKey) =>
      new HandshakeInitiator({
        deviceId,
        deviceKeys,
        hostBoxPublicKey: host.publicKey,
        clock,
        random: scriptedRandom(script),
      }).hello();
    const withStatic = hello(staticKey);
    expect(withStatic).toEqual(hello(device));
    const responder = new HandshakeResponder({
      hostKeys: host,
      lookupDevice: (id) => (id === deviceId ? device.publicKey : undefined),
      clock,
      random: r,
      replay: new ReplayCache(clock),
    });
    expect(responder.acceptHello(withStatic).ok).toBe(true);

    const call = (deviceKeys: typeof device | typeof staticKey) =>
      sealCall(
        { deviceId, deviceKeys, hostBoxPublicKey: host.publicKey, clock, random: scriptedRandom(script) },
        new Uint8Array([1, 2, 3]),
      ).message;
    expect(call(staticKey)).toEqual(call(device));
    const opened = openCall(call(staticKey), {
      hostKeys: host,
      lookupDevice: () => device.publicKey,
      clock,
      replay: new ReplayCache(clock),
    });
    expect(opened.ok).toBe(true);
  });
});
