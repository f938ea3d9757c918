import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectorsFile from '@tether/shared-protocol/test-vectors.json' with { type: 'json' };
import {
  HandshakeInitiator,
  HandshakeResponder,
  ReplayCache,
  checkX25519,
  generateDeviceId,
  secureRandom,
  tweetnaclX25519,
} from '@tether/shared-protocol';
import type { Vectors } from '@tether/shared-protocol/testing';
import { ManualClock, checkVectors } from '@tether/shared-protocol/testing';
import { chooseX25519, nodeX25519 } from './node-x25519.js';

describe('X25519 from node:crypto', () => {
  it('passes the start check and is the one chosen', () => {
    expect(checkX25519(nodeX25519)).toBe(true);
    expect(chooseX25519()).toBe(nodeX25519);
  });

  it('gives tweetnacl’s public keys and shared secrets for any keys', () => {
    const key = fc.uint8Array({ minLength: 32, maxLength: 32 });
    fc.assert(
      fc.property(key, key, (a, b) => {
        const pair = nodeX25519.keyPair(() => a.slice());
        expect(pair.publicKey).toEqual(tweetnaclX25519.keyPair(() => a.slice()).publicKey);
        const other = tweetnaclX25519.keyPair(() => b.slice()).publicKey;
        expect(nodeX25519.scalarMult(a, other)).toEqual(tweetnaclX25519.scalarMult(a, other));
      }),
      { numRuns: 50 },
    );
  });

  it('gives zeros for a low-order public key, as tweetnacl does, so the handshake refuses it the same way', () => {
    const secret = secureRandom(32);
    const lowOrder = new Uint8Array(32);
    lowOrder[0] = 1; // the point of order 1
    expect(nodeX25519.scalarMult(secret, lowOrder)).toEqual(new Uint8Array(32));
    expect(tweetnaclX25519.scalarMult(secret, lowOrder)).toEqual(new Uint8Array(32));
  });

  it('does not keep using a cached key after its bytes change', () => {
    const secret = secureRandom(32);
    const peer = tweetnaclX25519.keyPair(secureRandom).publicKey;
    const first = nodeX25519.scalarMult(secret, peer);
    secret[1]! ^= 1; // (the low bits of byte 0 are cleared by clamping: they change nothing)
    expect(nodeX25519.scalarMult(secret, peer)).toEqual(tweetnaclX25519.scalarMult(secret, peer));
    expect(nodeX25519.scalarMult(secret, peer)).not.toEqual(first);
  });

  it('makes the fixed protocol vectors byte for byte', () => {
    const checks = checkVectors(vectorsFile as Vectors, nodeX25519);
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks.length).toBeGreaterThan(15);
  });

  it('completes a handshake with a tweetnacl device (the app’s fallback)', () => {
    const clock = new ManualClock(1_700_000_000_000);
    const host = nodeX25519.keyPair(secureRandom);
    const device = tweetnaclX25519.keyPair(secureRandom);
    const initiator = new HandshakeInitiator({
      deviceId: generateDeviceId(),
      deviceKeys: device,
      hostBoxPublicKey: host.publicKey,
      clock,
      random: secureRandom,
    });
    const accepted = new HandshakeResponder({
      hostKeys: host,
      lookupDevice: () => device.publicKey,
      clock,
      random: secureRandom,
      replay: new ReplayCache(clock),
      x25519: nodeX25519,
    }).acceptHello(initiator.hello());
    if (!accepted.ok) throw new Error(accepted.error.code);
    const keys = initiator.acceptWelcome(accepted.value.welcome);
    expect(keys.ok && keys.value.send).toEqual(accepted.value.keys.receive);
  });
});
