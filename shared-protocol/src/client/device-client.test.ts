import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CloseCode } from '../close-codes.js';
import { generateBoxKeyPair, generateDeviceId } from '../identity.js';
import type { SessionEvent, SessionEventOf, TetherEvent } from '../rpc/events.js';
import { FakeHost } from '../testing/fake-host.js';
import { ManualClock } from '../testing/manual-clock.js';
import { seededRandom } from '../testing/seeded-random.js';
import { DeviceClient } from './device-client.js';
import { memoryPipe } from './memory-transport.js';

/** Lets queued microtasks and in-memory deliveries run. */
const settle = () => new Promise<void>((resolve) => setTimeout(() => resolve(), 0));

function setup(seed = 'client') {
  const random = seededRandom(seed);
  const clock = new ManualClock();
  const host = new FakeHost(generateBoxKeyPair(random), clock, random);
  const deviceKeys = generateBoxKeyPair(random);
  const deviceId = generateDeviceId(random);
  host.devices.set(deviceId, deviceKeys.publicKey);
  const network: { up: boolean; connects: number; holdNext: boolean; fail?: () => void } = {
    up: true,
    connects: 0,
    holdNext: false,
  };
  const client = new DeviceClient({
    deviceId,
    deviceKeys,
    hostBoxPublicKey: host.keys.publicKey,
    clock,
    random,
    jitter: () => 0.5,
    connect: () => {
      network.connects++;
      if (network.holdNext) {
        // An attempt still under way, which fails when the test says.
        network.holdNext = false;
        return new Promise((_, reject) => (network.fail = () => reject(new Error('network unreachable'))));
      }
      if (!network.up) return Promise.reject(new Error('network unreachable'));
      const [device, server] = memoryPipe();
      host.accept(server);
      return Promise.resolve(device);
    },
  });
  const events: TetherEvent[] = [];
  client.onEvent((e) => events.push(e));
  return { clock, host, client, events, network, deviceId };
}

async function openClient(s: ReturnType<typeof setup>) {
  s.client.start();
  await settle();
  await settle();
  expect(s.client.state.name).toBe('open');
}

describe('DeviceClient', () => {
  it('handshakes and makes calls with validated results', async () => {
    const s = setup();
    s.host.handlers.set('sessions.list', () => ({ result: { sessions: [] } }));
    s.host.handlers.set('machines.list', () => ({ result: { machines: 'not an array' } }));
    await openClient(s);
    expect(await s.client.call('sessions.list', {})).toEqual({ ok: true, value: { sessions: [] } });
    const bad = await s.client.call('machines.list', {});
    expect(!bad.ok && bad.error.code).toBe('malformed');
    const unknown = await s.client.call('devices.list', {});
    expect(!unknown.ok && unknown.error.code).toBe('unknown-method');
    s.client.stop();
  });

  it('offers batches first on each connection, and carries on with a host that does not know them', async () => {
    const s = setup();
    s.host.handlers.set('sessions.list', () => ({ result: { sessions: [] } }));
    s.client.watch('s1', 0);
    await openClient(s);
    // The fake host answers `unknown-method`, as an older host does, and sends single frames.
    expect(s.host.calls.map((c) => c.method)).toEqual(['channel.batch', 'sessions.watch']);
    s.host.append('s1', 'after');
    expect(await s.client.call('sessions.list', {})).toEqual({ ok: true, value: { sessions: [] } });
    expect(s.client.lastSeq('s1')).toBe(1);
    s.host.dropAll();
    await settle();
    s.clock.advance(1000);
    await settle();
    await settle();
    expect(s.host.calls.map((c) => c.method).filter((m) => m === 'channel.batch')).toHaveLength(2);
    s.client.stop();
  });

  it('times out a call that gets no reply', async () => {
    const s = setup();
    s.host.handlers.set('sessions.list', () => 'no-reply');
    await openClient(s);
    const pending = s.client.call('sessions.list', {}, { timeoutMs: 5000 });
    await settle();
    s.clock.advance(5000);
    const r = await pending;
    expect(!r.ok && r.error.code).toBe('timeout');
    s.client.stop();
  });

  it('queues calls made before the connection opens', async () => {
    const s = setup();
    s.host.handlers.set('sessions.list', () => ({ result: { sessions: [] } }));
    const early = s.client.call('sessions.list', {});
    await openClient(s);
    expect((await early).ok).toBe(true);
    s.client.stop();
  });

  it('resends an idempotent call after a drop but fails a non-idempotent one', async () => {
    const s = setup();
    let answer = false;
    s.host.handlers.set('sessions.list', () => (answer ? { result: { sessions: [] } } : 'no-reply'));
    s.host.handlers.set('sessions.send', () => 'no-reply');
    await openClient(s);
    const list = s.client.call('sessions.list', {});
    const send = s.client.call('sessions.send', { id: 's1', text: 'hi' });
    await settle();
    answer = true;
    s.host.dropAll();
    await settle();
    const sent = await send;
    expect(!sent.ok && sent.error.code).toBe('disconnected');
    expect(s.client.state.name).toBe('waiting');
    s.clock.advance(1_000);
    await settle();
    expect((await list).ok).toBe(true);
    expect(s.host.calls.filter((c) => c.method === 'sessions.send')).toHaveLength(1);
    s.client.stop();
  });

  it('backs off with growing, jittered delays and reconnects at once when asked', async () => {
    const s = setup();
    s.network.up = false;
    s.client.start();
    await settle();
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const state = s.client.state;
      if (state.name !== 'waiting') throw new Error(`state ${state.name}`);
      expect(state.error.code).toBe('unavailable');
      delays.push(state.retryAt - s.clock.now());
      s.clock.advance(state.retryAt - s.clock.now());
      await settle();
    }
    expect(delays.slice(0, 4)).toEqual([375, 750, 1500, 3000]);
    expect(Math.max(...delays)).toBeLessThanOrEqual(30_000);
    s.network.up = true;
    const before = s.network.connects;
    s.client.reconnectNow();
    await settle();
    await settle();
    expect(s.network.connects).toBe(before + 1);
    expect(s.client.state.name).toBe('open');
    s.client.stop();
  });

  it('asked to reconnect while an attempt is under way, dials again as soon as that one fails', async () => {
    const s = setup();
    s.network.up = false;
    s.client.start();
    await settle();
    for (let i = 0; i < 8; i++) {
      const state = s.client.state;
      if (state.name !== 'waiting') throw new Error(`state ${state.name}`);
      s.clock.advance(state.retryAt - s.clock.now());
      await settle();
    }
    // An attempt starts while the network is still down; the network comes back meanwhile.
    s.network.holdNext = true;
    const state = s.client.state;
    if (state.name !== 'waiting') throw new Error(`state ${state.name}`);
    s.clock.advance(state.retryAt - s.clock.now());
    await settle();
    expect(s.client.state.name).toBe('connecting');
    s.network.up = true;
    s.client.reconnectNow();
    s.network.fail!();
    await settle();
    await settle();
    await settle();
    // Not after the backoff (up to 30 s) the failures built up: at once.
    expect(s.client.state.name).toBe('open');
    s.client.stop();
  });

  it('woken after a long outage, retries a failed dial at the shortest step, not after the backoff the outage built', async () => {
    const s = setup();
    s.network.up = false;
    s.client.start();
    await settle();
    for (let i = 0; i < 8; i++) {
      const state = s.client.state;
      if (state.name !== 'waiting') throw new Error(`state ${state.name}`);
      s.clock.advance(state.retryAt - s.clock.now());
      await settle();
    }
    // Back online, but the first dial fails (the network is not quite there yet): the next one
    // comes within a second, not the 15–30 s the failures while it was away had built up.
    s.client.reconnectNow();
    await settle();
    const state = s.client.state;
    if (state.name !== 'waiting') throw new Error(`state ${state.name}`);
    expect(state.retryAt - s.clock.now()).toBeLessThanOrEqual(500);
    s.network.up = true;
    s.clock.advance(state.retryAt - s.clock.now());
    await settle();
    await settle();
    expect(s.client.state.name).toBe('open');
    s.client.stop();
  });

  it('keeps trying, with backoff, when the host does not know the device: an unsealed close proves nothing', async () => {
    const s = setup();
    s.host.devices.clear();
    s.client.start();
    await settle();
    await settle();
    const state = s.client.state;
    expect(state.name === 'waiting' && state.error.code).toBe('handshake-failed');
    const connects = s.network.connects;
    s.clock.advance(120_000);
    await settle();
    expect(s.network.connects).toBeGreaterThan(connects);
  });

  it('does not give up on a forged "revoked" close code', async () => {
    const s = setup();
    await openClient(s);
    for (const c of s.host.connections) c.transport.close(CloseCode.Revoked, 'revoked');
    await settle();
    expect(s.client.state).toMatchObject({ name: 'waiting', error: { code: 'revoked' } });
    s.clock.advance(60_000);
    await settle();
    expect(s.client.state.name).toBe('open');
  });

  it('stops for good when a revoked device is told so right after the welcome', async () => {
    const s = setup();
    s.host.revoked.add(s.deviceId);
    s.client.start();
    await settle();
    await settle();
    expect(s.client.state).toMatchObject({ name: 'refused', error: { code: 'revoked' } });
  });

  it('stops for good when told it was revoked', async () => {
    const s = setup();
    await openClient(s);
    for (const c of s.host.connections) c.send({ t: 'bye', code: 'revoked', message: 'this device was revoked' });
    await settle();
    const state = s.client.state;
    expect(state.name === 'refused' && state.error.code).toBe('revoked');
  });

  it('notices a dead connection by its missing pong and reconnects', async () => {
    const s = setup();
    await openClient(s);
    // The host goes silent: frames from the device vanish.
    for (const c of s.host.connections) c.transport.onMessage = () => {};
    s.clock.advance(25_000);
    await settle();
    s.clock.advance(10_000);
    await settle();
    expect(s.client.state.name).toBe('waiting');
    s.clock.advance(1_000);
    await settle();
    await settle();
    expect(s.client.state.name).toBe('open');
    s.client.stop();
  });

  it('keeps a connection whose pong is late behind what the host is still sending (a long catch-up)', async () => {
    const s = setup();
    await openClient(s);
    // The host answers no ping (its pong is queued behind a catch-up) but events keep arriving.
    for (const c of s.host.connections) c.transport.onMessage = () => {};
    const events = s.events.length;
    s.clock.advance(25_000);
    await settle();
    for (let second = 1; second <= 20; second++) {
      for (const c of s.host.connections) c.send({ t: 'evt', event: { type: 'from.the.future', n: second } });
      await settle();
      s.clock.advance(1_000);
      await settle();
      expect(s.client.state.name, `after ${second} s`).toBe('open');
    }
    // And once nothing at all arrives after a ping (the next, at 50 s), the connection is dead.
    s.clock.advance(5_000);
    await settle();
    s.clock.advance(10_000);
    await settle();
    expect(s.client.state.name).toBe('waiting');
    expect(s.events.length).toBe(events);
    s.client.stop();
  });

  it('counts and skips unknown and invalid events', async () => {
    const s = setup();
    await openClient(s);
    for (const c of s.host.connections) {
      c.send({ t: 'evt', event: { type: 'from.the.future', x: 1 } });
      c.send({ t: 'evt', event: { type: 'message', sessionId: 's' } });
    }
    await settle();
    expect(s.client.skipped).toMatchObject({ unknown: 1, invalid: 1 });
    expect(s.events).toHaveLength(0);
    s.client.stop();
  });

  it('resumes watched sessions across drops with every event exactly once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant('append' as const), fc.constant('drop' as const), fc.constant('wait' as const)), {
          minLength: 5,
          maxLength: 40,
        }),
        async (steps) => {
          const s = setup('resume');
          s.host.append('s1', 'before watching');
          await openClient(s);
          s.client.watch('s1', 0);
          await settle();
          let appended = 1;
          for (const step of steps) {
            if (step === 'append') {
              s.host.append('s1', `event ${++appended}`);
              s.host.append('other', 'not watched');
            } else if (step === 'drop') s.host.dropAll();
            else s.clock.advance(40_000);
            await settle();
          }
          // Let every backoff run out and the last resume complete.
          for (let i = 0; i < 4; i++) {
            s.clock.advance(40_000);
            await settle();
            await settle();
          }
          const seqs = s.events.filter((e): e is SessionEvent => 'seq' in e && e.sessionId === 's1').map((e) => e.seq);
          expect(seqs).toEqual(Array.from({ length: appended }, (_, i) => i + 1));
          expect(s.client.lastSeq('s1')).toBe(appended);
          s.client.stop();
        },
      ),
      { numRuns: 40 },
    );
  });

  it('resumes from a given sequence number without replaying older events', async () => {
    const s = setup();
    for (let i = 0; i < 5; i++) s.host.append('s1', `e${i}`);
    await openClient(s);
    s.client.watch('s1', 3);
    await settle();
    expect(s.events.map((e) => ('seq' in e ? e.seq : -1))).toEqual([4, 5]);
    s.client.unwatch('s1');
    await settle();
    s.host.append('s1', 'after unwatch');
    await settle();
    expect(s.events).toHaveLength(2);
    s.client.stop();
  });

  it('drops events it already delivered when a host replays too much', async () => {
    const s = setup();
    for (let i = 0; i < 4; i++) s.host.append('s1', `e${i}`);
    const watch = s.host.handlers.get('sessions.watch')!;
    // A careless host that ignores `after` and replays everything.
    s.host.handlers.set('sessions.watch', (params, c) => watch({ ...(params as object), after: 0 }, c));
    await openClient(s);
    s.client.watch('s1', 2);
    await settle();
    s.host.dropAll();
    await settle();
    s.clock.advance(1_000);
    await settle();
    s.host.append('s1', 'e4');
    await settle();
    expect(s.events.map((e) => ('seq' in e ? e.seq : -1))).toEqual([3, 4, 5]);
    expect(s.client.skipped.duplicate).toBeGreaterThan(0);
    s.client.stop();
  });

  it('asks again from what it holds when an event is missing', async () => {
    const s = setup();
    await openClient(s);
    s.client.watch('s1', 0);
    await settle();
    s.host.append('s1', 'e1');
    const lost = s.host.append('s1', 'e2');
    await settle();
    // Deliver e3 without e2 reaching the device first: the host's log has all three.
    const watchers = [...s.host.connections];
    for (const c of watchers) c.watching.delete('s1');
    s.host.logs.get('s1')!.push({ ...(lost as SessionEventOf<'message'>), seq: 3, messageId: 'm3' });
    for (const c of watchers) c.send({ t: 'evt', event: s.host.logs.get('s1')![2]! });
    await settle();
    expect(s.events.map((e) => ('seq' in e ? e.seq : -1))).toEqual([1, 2, 3]);
    s.client.stop();
  });

  it('on a tail watch, jumps over what was skipped and then goes on in order, after every reconnect', async () => {
    const s = setup();
    for (let i = 0; i < 10; i++) s.host.append('s1', `e${i}`);
    await openClient(s);
    s.client.watch('s1', 2, { tail: 3 });
    await settle();
    const seen = () =>
      s.events.map((e) => ('seq' in e ? e.seq : e.type === 'watch.skipped' ? `skip ${e.after}-${e.to}` : e.type));
    expect(seen()).toEqual(['skip 2-7', 8, 9, 10]);
    s.host.dropAll();
    await settle();
    for (let i = 0; i < 6; i++) s.host.append('s1', `late${i}`);
    s.clock.advance(1_000);
    await settle();
    await settle();
    expect(seen()).toEqual(['skip 2-7', 8, 9, 10, 'skip 10-13', 14, 15, 16]);
    // Fewer than the tail came in: plain replay, no skip.
    s.host.dropAll();
    await settle();
    s.host.append('s1', 'one more');
    s.clock.advance(1_000);
    await settle();
    await settle();
    expect(seen().slice(-1)).toEqual([17]);
    expect(s.client.lastSeq('s1')).toBe(17);
    s.client.stop();
  });

  it('drops a stale skip that names nothing past what was delivered', async () => {
    const s = setup();
    for (let i = 0; i < 3; i++) s.host.append('s1', `e${i}`);
    await openClient(s);
    s.client.watch('s1', 0, { tail: 10 });
    await settle();
    for (const c of s.host.connections)
      c.send({ t: 'evt', event: { type: 'watch.skipped', sessionId: 's1', after: 0, to: 2 } });
    await settle();
    expect(s.events.map((e) => e.type)).toEqual(['message', 'message', 'message']);
    expect(s.client.skipped.duplicate).toBe(1);
    s.client.stop();
  });
});
