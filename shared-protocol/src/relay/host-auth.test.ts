import { describe, expect, it } from 'vitest';
import { generateHostIdentity } from '../identity.js';
import { ManualClock } from '../testing/manual-clock.js';
import { seededRandom } from '../testing/seeded-random.js';
import { answerRelayChallenge, makeRelayChallenge, relayOrigin, verifyHostAuth } from './host-auth.js';
import { encodeRelayFrame } from './relay-frame.js';
import { decodeRelayFrame } from './relay-frame-decode.js';
import { RELAY_CLOCK_SKEW_MS } from './relay-limits.js';
import { signRelayTicket } from './relay-ticket.js';

const host = generateHostIdentity(seededRandom('host auth host'));
const other = generateHostIdentity(seededRandom('host auth other'));
const clock = new ManualClock();
const random = seededRandom('host auth nonces');
const relayUrl = 'https://relay.example.com';
const challenge = () => {
  const r = makeRelayChallenge({ origin: 'https://relay.example.com', clock, random });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe('host authentication to a relay', () => {
  it('proves the host id derived from the key that signed the challenge', () => {
    const c = challenge();
    const answer = answerRelayChallenge(c, host.sign, { relayUrl, clock });
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    const verified = verifyHostAuth(c, answer.value);
    expect(verified).toMatchObject({ ok: true, value: { hostId: host.hostId } });
  });

  it('refuses an answer to another challenge (a replayed answer)', () => {
    const first = challenge();
    const answer = answerRelayChallenge(first, host.sign, { relayUrl, clock });
    if (!answer.ok) throw new Error('unexpected');
    expect(verifyHostAuth(challenge(), answer.value)).toMatchObject({ ok: false, error: { code: 'handshake-failed' } });
  });

  it('refuses a key swapped in under a real signature', () => {
    const c = challenge();
    const answer = answerRelayChallenge(c, host.sign, { relayUrl, clock });
    if (!answer.ok) throw new Error('unexpected');
    const swapped = answer.value.slice();
    swapped.set(other.sign.publicKey, 2);
    expect(verifyHostAuth(c, swapped)).toMatchObject({ ok: false, error: { code: 'handshake-failed' } });
  });

  it('refuses every changed byte of the answer', () => {
    const c = challenge();
    const answer = answerRelayChallenge(c, host.sign, { relayUrl, clock });
    if (!answer.ok) throw new Error('unexpected');
    for (let i = 0; i < answer.value.length; i++) {
      const changed = answer.value.slice();
      changed[i]! ^= 0x20;
      expect(verifyHostAuth(c, changed).ok, `byte ${i}`).toBe(false);
    }
  });

  it("host side: refuses to sign another relay's challenge", () => {
    const foreign = makeRelayChallenge({ origin: 'https://evil.example', clock, random });
    if (!foreign.ok) throw new Error('unexpected');
    expect(answerRelayChallenge(foreign.value, host.sign, { relayUrl, clock })).toMatchObject({
      ok: false,
      error: { code: 'handshake-failed' },
    });
    // The same relay reached as wss:// names its https origin.
    expect(answerRelayChallenge(challenge(), host.sign, { relayUrl: 'wss://relay.example.com/', clock }).ok).toBe(true);
  });

  it('host side: refuses a challenge from too far in the past or future', () => {
    const c = challenge();
    const later = new ManualClock(clock.now() + RELAY_CLOCK_SKEW_MS + 1);
    expect(answerRelayChallenge(c, host.sign, { relayUrl, clock: later })).toMatchObject({
      ok: false,
      error: { code: 'handshake-stale' },
    });
  });

  it('host side: refuses anything but a challenge', () => {
    const ping = encodeRelayFrame({ type: 'ping', nonce: new Uint8Array(8) });
    if (!ping.ok) throw new Error('unexpected');
    expect(answerRelayChallenge(ping.value, host.sign, { relayUrl, clock })).toMatchObject({
      ok: false,
      error: { code: 'handshake-malformed' },
    });
  });

  it('a ticket signature is no answer to a challenge (domain separation)', () => {
    const c = challenge();
    const ticket = signRelayTicket({ deviceId: 'A'.repeat(21) + 'A', expiresAt: 1 }, host.sign);
    const auth = encodeRelayFrame({ type: 'auth', signPublicKey: host.sign.publicKey, signature: ticket.subarray(41) });
    if (!auth.ok) throw new Error('unexpected');
    expect(verifyHostAuth(c, auth.value).ok).toBe(false);
  });

  it('challenges are fresh and carry the origin and time', () => {
    const a = decodeRelayFrame(challenge());
    const b = decodeRelayFrame(challenge());
    expect(a).toMatchObject({ ok: true, value: { type: 'challenge', origin: relayUrl, time: clock.now() } });
    if (a.ok && b.ok && a.value.type === 'challenge' && b.value.type === 'challenge') {
      expect(a.value.nonce).not.toEqual(b.value.nonce);
    }
  });

  it('relayOrigin keeps scheme, host and port, and refuses other schemes', () => {
    expect(relayOrigin('https://Relay.Example.com:8443/x/')).toBe('https://relay.example.com:8443');
    expect(relayOrigin('wss://relay.example.com/relay/host')).toBe('https://relay.example.com');
    expect(relayOrigin('ws://127.0.0.1:7440')).toBe('http://127.0.0.1:7440');
    expect(relayOrigin('https://relay.example.com:443')).toBe('https://relay.example.com');
    for (const bad of ['ftp://x', 'not a url', 'https://user:pw@relay.example.com'])
      expect(relayOrigin(bad)).toBeUndefined();
  });
});
