import fc from 'fast-check';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url } from '../encoding.js';
import { isErrorCode } from '../errors.js';
import { generateHostIdentity } from '../identity.js';
import { ManualClock } from '../testing/manual-clock.js';
import { seededRandom } from '../testing/seeded-random.js';
import { RELAY_CLOCK_SKEW_MS } from './relay-limits.js';
import {
  RELAY_TICKET_BYTES,
  decodeRelayTicket,
  encodeRelayTicket,
  signRelayTicket,
  verifyRelayTicket,
} from './relay-ticket.js';

const host = generateHostIdentity(seededRandom('relay ticket host'));
const other = generateHostIdentity(seededRandom('relay ticket other host'));
const deviceId = toBase64Url(new Uint8Array(16).fill(7));
const clock = new ManualClock(1_800_000_000_000);
const expiresAt = clock.now() + 60_000;
const ticket = signRelayTicket({ deviceId, expiresAt }, host.sign);
const verify = (t: Uint8Array | string, overrides: Partial<Parameters<typeof verifyRelayTicket>[1]> = {}) =>
  verifyRelayTicket(t, { hostId: host.hostId, hostSignPublicKey: host.sign.publicKey, clock, ...overrides });

describe('relay tickets', () => {
  it('verify what the host signed, as bytes and as text', () => {
    expect(ticket.length).toBe(RELAY_TICKET_BYTES);
    const want = { ok: true, value: { v: 1, hostId: host.hostId, deviceId, expiresAt } };
    expect(verify(ticket)).toEqual(want);
    expect(verify(encodeRelayTicket(ticket))).toEqual(want);
    expect(fromBase64Url(encodeRelayTicket(ticket))).toEqual(ticket);
  });

  it('refuse an expired ticket, after the allowed skew and not before', () => {
    clock.set(expiresAt + RELAY_CLOCK_SKEW_MS);
    expect(verify(ticket).ok).toBe(true);
    clock.set(expiresAt + RELAY_CLOCK_SKEW_MS + 1);
    expect(verify(ticket)).toMatchObject({ ok: false, error: { code: 'ticket-expired' } });
    clock.set(1_800_000_000_000);
  });

  it('refuse a ticket for another host (its own key, at another host id)', () => {
    const forOther = signRelayTicket({ deviceId, expiresAt }, other.sign);
    expect(verify(forOther)).toMatchObject({ ok: false, error: { code: 'ticket-wrong-host' } });
  });

  it('refuse a key that does not hash to the host id', () => {
    const r = verify(ticket, { hostSignPublicKey: other.sign.publicKey });
    expect(r).toMatchObject({ ok: false, error: { code: 'ticket-key-mismatch' } });
    expect(verify(ticket, { hostSignPublicKey: new Uint8Array(31) })).toMatchObject({
      ok: false,
      error: { code: 'ticket-key-mismatch' },
    });
  });

  it('refuse a forged ticket: right host id, signed by another key', () => {
    const forged = signRelayTicket({ deviceId, expiresAt }, other.sign);
    forged.set(fromBase64Url(host.hostId)!, 1);
    expect(verify(forged)).toMatchObject({ ok: false, error: { code: 'ticket-forged' } });
  });

  it('refuse any changed byte: device, expiry or signature', () => {
    for (let i = 1; i < ticket.length; i++) {
      const tampered = ticket.slice();
      tampered[i]! ^= 0x01;
      const r = verify(tampered);
      expect(r.ok, `byte ${i}`).toBe(false);
      // A change in the host id shows as the wrong host, an expiry beyond 2^53 ms as malformed;
      // anywhere else the signature fails.
      const want = i <= 16 ? 'ticket-wrong-host' : i === 33 ? 'ticket-malformed' : 'ticket-forged';
      if (!r.ok) expect(r.error.code, `byte ${i}`).toBe(want);
    }
  });

  it('refuse a longer expiry pasted onto a real signature', () => {
    const extended = ticket.slice();
    extended.set(signRelayTicket({ deviceId, expiresAt: expiresAt + 1e9 }, other.sign).subarray(33, 41), 33);
    expect(verify(extended)).toMatchObject({ ok: false, error: { code: 'ticket-forged' } });
  });

  it('decode never throws, and says malformed for anything not a ticket', () => {
    for (const bad of [
      '',
      'not base64!',
      toBase64Url(new Uint8Array(104)),
      toBase64Url(Uint8Array.of(2, ...ticket.subarray(1))),
    ]) {
      expect(decodeRelayTicket(bad)).toMatchObject({ ok: false, error: { code: 'ticket-malformed' } });
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const r = verify(bytes);
        if (!r.ok) expect(isErrorCode(r.error.code)).toBe(true);
        else expect(bytes).toEqual(ticket);
      }),
    );
  });

  it('cannot be confused with another signature made by the same key', () => {
    // The same body signed without the domain label does not verify as a ticket.
    const body = ticket.subarray(0, 41);
    const bare = new Uint8Array(RELAY_TICKET_BYTES);
    bare.set(body);
    bare.set(nacl.sign.detached(body, host.sign.secretKey), 41);
    expect(verify(bare)).toMatchObject({ ok: false, error: { code: 'ticket-forged' } });
  });
});
