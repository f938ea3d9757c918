import { generateDeviceId, generateHostIdentity, signRelayTicket, verifyRelayTicket } from '@tether/shared-protocol';
import { seededRandom } from '@tether/shared-protocol/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyEd25519 } from './ed25519.js';

describe('verifyEd25519', () => {
  const random = seededRandom('ed25519');
  const host = generateHostIdentity(random);
  const ticket = signRelayTicket({ deviceId: generateDeviceId(random), expiresAt: 10_000 }, host.sign);
  const check = (bytes: Uint8Array, verifySignature?: typeof verifyEd25519) =>
    verifyRelayTicket(bytes, {
      hostId: host.hostId,
      hostSignPublicKey: host.sign.publicKey,
      clock: { now: () => 0 },
      ...(verifySignature ? { verifySignature } : {}),
    });

  it('takes a ticket the host signed, as the portable check does', () => {
    expect(check(ticket, verifyEd25519)).toEqual(check(ticket));
    expect(check(ticket, verifyEd25519).ok).toBe(true);
  });

  it('refuses every changed bit of a ticket, with the same code as the portable check', () => {
    fc.assert(
      fc.property(fc.nat(ticket.length * 8 - 1), (bit) => {
        const changed = ticket.slice();
        changed[bit >> 3]! ^= 1 << (bit & 7);
        const fast = check(changed, verifyEd25519);
        expect(fast.ok).toBe(false);
        expect(fast).toEqual(check(changed));
      }),
      { numRuns: 300 },
    );
  });

  it('is false, never a throw, for a malformed key or signature', () => {
    const message = new Uint8Array(3);
    const signature = new Uint8Array(64).fill(1);
    expect(verifyEd25519(message, signature, host.sign.publicKey.subarray(0, 31))).toBe(false);
    expect(verifyEd25519(message, signature.subarray(0, 63), host.sign.publicKey)).toBe(false);
    expect(verifyEd25519(message, signature, new Uint8Array(32))).toBe(false);
  });
});
