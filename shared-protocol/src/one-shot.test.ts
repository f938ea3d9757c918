import { describe, expect, it } from 'vitest';
import { utf8Encode } from './encoding.js';
import { generateBoxKeyPair, generateDeviceId } from './identity.js';
import { HANDSHAKE_CLOCK_WINDOW_MS } from './limits.js';
import { openCall, openCallReply, sealCall, sealCallReply } from './one-shot.js';
import { ReplayCache } from './replay-cache.js';
import { ManualClock } from './testing/manual-clock.js';
import { bitFlips } from './testing/mutations.js';
import { seededRandom } from './testing/seeded-random.js';

function setup() {
  const random = seededRandom('one-shot');
  const clock = new ManualClock();
  const host = generateBoxKeyPair(random);
  const device = generateBoxKeyPair(random);
  const deviceId = generateDeviceId(random);
  const devices = new Map([[deviceId, device.publicKey]]);
  const replay = new ReplayCache(clock);
  const seal = (body: string) =>
    sealCall({ deviceId, deviceKeys: device, hostBoxPublicKey: host.publicKey, clock, random }, utf8Encode(body));
  const open = (message: Uint8Array) =>
    openCall(message, { hostKeys: host, lookupDevice: (id) => devices.get(id), clock, replay });
  return { random, clock, host, device, deviceId, devices, seal, open, replay };
}

const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);

describe('one-shot calls', () => {
  it('carry one request and one reply bound to it', () => {
    const s = setup();
    const call = s.seal('{"method":"approvals.answer"}');
    const opened = s.open(call.message);
    if (!opened.ok) throw new Error(opened.error.code);
    expect(new TextDecoder().decode(opened.value.body)).toBe('{"method":"approvals.answer"}');
    const reply = sealCallReply(opened.value.replyKey, utf8Encode('{"ok":true}'), s.random);
    const r = openCallReply(reply, call.replyKey);
    expect(r.ok && new TextDecoder().decode(r.value)).toBe('{"ok":true}');
    // A reply to another call does not open with this call's key.
    const other = s.open(s.seal('x').message);
    if (!other.ok) throw new Error('refused');
    expect(code(openCallReply(sealCallReply(other.value.replyKey, utf8Encode('{}'), s.random), call.replyKey))).toBe(
      'frame-tampered',
    );
  });

  it('refuses a replay, a stale call and an unknown device', () => {
    const s = setup();
    const call = s.seal('a');
    expect(code(s.open(call.message))).toBe('ok');
    expect(code(s.open(call.message))).toBe('handshake-replayed');
    const late = s.seal('b');
    s.clock.advance(HANDSHAKE_CLOCK_WINDOW_MS + 1);
    expect(code(s.open(late.message))).toBe('handshake-stale');
    const orphan = s.seal('c');
    s.devices.clear();
    expect(code(s.open(orphan.message))).toBe('handshake-failed');
  });

  it('refuses a call no newer than the newest of its device an earlier run of the host took', () => {
    const s = setup();
    // The device's clock runs ahead: its call stays inside the window longer than a restart takes.
    const ahead = { now: () => s.clock.now() + HANDSHAKE_CLOCK_WINDOW_MS - 1000 };
    const seal = (clock: { now(): number }) =>
      sealCall(
        { deviceId: s.deviceId, deviceKeys: s.device, hostBoxPublicKey: s.host.publicKey, clock, random: s.random },
        utf8Encode('a'),
      );
    const call = seal(ahead);
    const taken = s.open(call.message);
    if (!taken.ok) throw new Error(taken.error.code);
    expect(taken.value.stampedAt).toBe(ahead.now());

    // After a restart: an empty replay cache, the start, and what the store kept.
    s.clock.advance(10_000);
    const restarted = (message: Uint8Array) =>
      openCall(message, {
        hostKeys: s.host,
        lookupDevice: (id) => s.devices.get(id),
        clock: s.clock,
        replay: new ReplayCache(s.clock),
        notBefore: s.clock.now(),
        takenBefore: (id) => (id === s.deviceId ? taken.value.stampedAt : undefined),
      });
    expect(code(restarted(call.message))).toBe('handshake-replayed');
    expect(code(restarted(seal(ahead).message))).toBe('ok');
  });

  it('refuses every single-bit flip of a call and of a reply', () => {
    const s = setup();
    const call = s.seal('{"id":1}');
    for (const { index, mutated } of bitFlips(call.message)) {
      expect(s.open(mutated).ok, `flip at ${index}`).toBe(false);
    }
    const opened = s.open(call.message);
    if (!opened.ok) throw new Error(opened.error.code);
    const reply = sealCallReply(opened.value.replyKey, utf8Encode('{}'), s.random);
    for (const { index, mutated } of bitFlips(reply)) {
      expect(openCallReply(mutated, call.replyKey).ok, `flip at ${index}`).toBe(false);
    }
  });

  it('refuses oversized and truncated calls', () => {
    const s = setup();
    expect(code(s.open(new Uint8Array(70_000)))).toBe('too-large');
    expect(code(s.open(s.seal('x').message.subarray(0, 60)))).toBe('handshake-malformed');
  });
});
