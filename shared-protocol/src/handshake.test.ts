import { describe, expect, it } from 'vitest';
import type { Result } from './errors.js';
import type { AcceptedHello, SessionKeys } from './handshake.js';
import { HELLO_BYTES, HandshakeInitiator, HandshakeResponder, WELCOME_BYTES, peekHelloDeviceId } from './handshake.js';
import { generateBoxKeyPair, generateDeviceId } from './identity.js';
import { HANDSHAKE_CLOCK_WINDOW_MS } from './limits.js';
import { ReplayCache } from './replay-cache.js';
import { FrameOpener, FrameSealer } from './sealed-frame.js';
import { ManualClock } from './testing/manual-clock.js';
import { bitFlips } from './testing/mutations.js';
import { seededRandom } from './testing/seeded-random.js';
import { PROTOCOL_VERSION } from './version.js';

function setup(seed = 'handshake') {
  const random = seededRandom(seed);
  const clock = new ManualClock();
  const host = generateBoxKeyPair(random);
  const device = generateBoxKeyPair(random);
  const deviceId = generateDeviceId(random);
  const devices = new Map([[deviceId, device.publicKey]]);
  const replay = new ReplayCache(clock);
  const responder = () =>
    new HandshakeResponder({ hostKeys: host, lookupDevice: (id) => devices.get(id), clock, random, replay });
  const initiator = (
    overrides: Partial<{ hostKey: Uint8Array; deviceKeys: typeof device; random: typeof random }> = {},
  ) =>
    new HandshakeInitiator({
      deviceId,
      deviceKeys: overrides.deviceKeys ?? device,
      hostBoxPublicKey: overrides.hostKey ?? host.publicKey,
      clock,
      random: overrides.random ?? random,
    });
  return { random, clock, host, device, deviceId, devices, replay, responder, initiator };
}

function code<T>(r: Result<T>): string {
  return r.ok ? 'ok' : r.error.code;
}

function expectWorkingChannel(deviceKeys: SessionKeys, hostKeys: SessionKeys) {
  const toHost = new FrameSealer(deviceKeys.send).seal(Uint8Array.of(1, 2, 3));
  const toDevice = new FrameSealer(hostKeys.send).seal(Uint8Array.of(4));
  expect(toHost.ok && new FrameOpener(hostKeys.receive).open(toHost.value).ok).toBe(true);
  expect(toDevice.ok && new FrameOpener(deviceKeys.receive).open(toDevice.value).ok).toBe(true);
  expect(deviceKeys.send).not.toEqual(deviceKeys.receive);
}

describe('handshake', () => {
  it('derives matching per-direction keys', () => {
    const s = setup();
    const init = s.initiator();
    const hello = init.hello();
    expect(hello).toHaveLength(HELLO_BYTES);
    expect(peekHelloDeviceId(hello)).toBe(s.deviceId);
    const accepted = s.responder().acceptHello(hello);
    if (!accepted.ok) throw new Error(accepted.error.code);
    expect(accepted.value.deviceId).toBe(s.deviceId);
    expect(accepted.value.welcome).toHaveLength(WELCOME_BYTES);
    const keys = init.acceptWelcome(accepted.value.welcome);
    if (!keys.ok) throw new Error(keys.error.code);
    expect(keys.value.send).toEqual(accepted.value.keys.receive);
    expect(keys.value.receive).toEqual(accepted.value.keys.send);
    expectWorkingChannel(keys.value, accepted.value.keys);
  });

  it('gives fresh keys every time (ephemeral keys)', () => {
    const s = setup();
    const run = () => {
      const init = s.initiator();
      const accepted = s.responder().acceptHello(init.hello());
      if (!accepted.ok) throw new Error('refused');
      return accepted.value.keys.send;
    };
    expect(run()).not.toEqual(run());
  });

  it('refuses an unknown device and a revoked one alike', () => {
    const s = setup();
    const hello = s.initiator().hello();
    s.devices.clear();
    const r = s.responder().acceptHello(hello);
    expect(code(r)).toBe('handshake-failed');
  });

  it('refuses a device key the host does not hold, and a welcome from the wrong host', () => {
    const s = setup();
    const impostor = s.initiator({ deviceKeys: generateBoxKeyPair(s.random) });
    expect(code(s.responder().acceptHello(impostor.hello()))).toBe('handshake-failed');

    const wrongHost = generateBoxKeyPair(s.random);
    const init = s.initiator({ hostKey: wrongHost.publicKey });
    expect(code(s.responder().acceptHello(init.hello()))).toBe('handshake-failed');
  });

  it('refuses stale and future timestamps', () => {
    const s = setup();
    const hello = s.initiator().hello();
    s.clock.advance(HANDSHAKE_CLOCK_WINDOW_MS + 1);
    expect(code(s.responder().acceptHello(hello))).toBe('handshake-stale');

    const s2 = setup('future');
    const future = s2.initiator().hello();
    s2.clock.set(s2.clock.now() - HANDSHAKE_CLOCK_WINDOW_MS - 1);
    expect(code(s2.responder().acceptHello(future))).toBe('handshake-stale');
  });

  it('refuses a replayed hello', () => {
    const s = setup();
    const hello = s.initiator().hello();
    expect(code(s.responder().acceptHello(hello))).toBe('ok');
    expect(code(s.responder().acceptHello(hello))).toBe('handshake-replayed');
    // Still refused later in the window, forgotten only once the timestamp itself is stale.
    s.clock.advance(HANDSHAKE_CLOCK_WINDOW_MS);
    expect(code(s.responder().acceptHello(hello))).toBe('handshake-replayed');
    s.clock.advance(1);
    expect(code(s.responder().acceptHello(hello))).toBe('handshake-stale');
  });

  it('refuses when the replay cache is full rather than forgetting', () => {
    const s = setup();
    const small = new ReplayCache(s.clock, 1);
    const mk = () =>
      new HandshakeResponder({
        hostKeys: s.host,
        lookupDevice: (id) => s.devices.get(id),
        clock: s.clock,
        random: s.random,
        replay: small,
      });
    expect(code(mk().acceptHello(s.initiator().hello()))).toBe('ok');
    expect(code(mk().acceptHello(s.initiator().hello()))).toBe('busy');
  });

  it('does not let one device fill the replay cache and lock the others out', () => {
    const s = setup();
    const other = generateBoxKeyPair(s.random);
    const otherId = generateDeviceId(s.random);
    s.devices.set(otherId, other.publicKey);
    const cache = new ReplayCache(s.clock, 64);
    const accept = (hello: Uint8Array) =>
      new HandshakeResponder({
        hostKeys: s.host,
        lookupDevice: (id) => s.devices.get(id),
        clock: s.clock,
        random: s.random,
        replay: cache,
      }).acceptHello(hello);
    // One device (or whoever holds its key) floods the host with fresh hellos…
    const results = Array.from({ length: 200 }, () => code(accept(s.initiator().hello())));
    expect(results.filter((r) => r === 'ok').length).toBeGreaterThan(0);
    expect(results.at(-1)).toBe('busy');
    // …and every other device still gets in.
    const stranger = new HandshakeInitiator({
      deviceId: otherId,
      deviceKeys: other,
      hostBoxPublicKey: s.host.publicKey,
      clock: s.clock,
      random: s.random,
    });
    expect(code(accept(stranger.hello()))).toBe('ok');
  });

  it('refuses every single-bit flip of the hello', () => {
    const s = setup();
    const hello = s.initiator().hello();
    for (const { index, mutated } of bitFlips(hello)) {
      expect(s.responder().acceptHello(mutated).ok, `flip at ${index}`).toBe(false);
    }
  });

  it('refuses every single-bit flip of the welcome', () => {
    const s = setup();
    // Initiators drawing from the same seed send the same hello, so each meets the same welcome.
    const fresh = () => {
      const init = s.initiator({ random: seededRandom('device ephemeral') });
      init.hello();
      return init;
    };
    const accepted = s.responder().acceptHello(s.initiator({ random: seededRandom('device ephemeral') }).hello());
    if (!accepted.ok) throw new Error(accepted.error.code);
    const welcome = accepted.value.welcome;
    for (const { index, mutated } of bitFlips(welcome)) {
      expect(fresh().acceptWelcome(mutated).ok, `flip at ${index}`).toBe(false);
    }
    expect(code(fresh().acceptWelcome(welcome))).toBe('ok');
  });

  it('refuses a welcome answering another hello', () => {
    const s = setup();
    const a = s.initiator();
    const b = s.initiator();
    a.hello();
    const helloB = b.hello();
    const accepted = s.responder().acceptHello(helloB) as { ok: true; value: AcceptedHello };
    expect(code(a.acceptWelcome(accepted.value.welcome))).toBe('handshake-failed');
  });

  it('names a version mismatch and malformed input', () => {
    const s = setup();
    const hello = s.initiator().hello();
    const other = hello.slice();
    other[1] = PROTOCOL_VERSION + 1;
    expect(code(s.responder().acceptHello(other))).toBe('version-unsupported');
    expect(code(s.responder().acceptHello(hello.subarray(0, 50)))).toBe('handshake-malformed');
    expect(code(s.responder().acceptHello(new Uint8Array(0)))).toBe('handshake-malformed');
  });

  it('throws only when the state machine is misused', () => {
    const s = setup();
    const init = s.initiator();
    expect(() => init.acceptWelcome(new Uint8Array(0))).toThrow(/state start/);
    init.hello();
    expect(() => init.hello()).toThrow(/awaiting-welcome/);
    const responder = s.responder();
    responder.acceptHello(new Uint8Array(0));
    expect(() => responder.acceptHello(new Uint8Array(0))).toThrow(/twice/);
  });
});
