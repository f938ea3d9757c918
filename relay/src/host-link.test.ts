import {
  CloseCode,
  RelayCloseCode,
  RelayFrameType,
  answerRelayChallenge,
  encodeRelayFrame,
  generateHostIdentity,
  utf8Encode,
} from '@tether/shared-protocol';
import { seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { FakePort } from './testing/fake-port.js';
import { ORIGIN, harness } from './testing/harness.js';

const frame = (f: Parameters<typeof encodeRelayFrame>[0]) => {
  const r = encodeRelayFrame(f);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe('host link', () => {
  it('sends a challenge at once and becomes the link for the proven host id', () => {
    const h = harness();
    const { port, link, identity } = h.host();
    expect(port.frames()[0]).toMatchObject({ type: 'challenge', origin: ORIGIN });
    expect(port.frames()[1]).toMatchObject({ type: 'ready', hostId: identity.hostId, maxConnections: 64 });
    // Then what the relay is: this one serves no app (a host labels pair requests through it so).
    expect(port.frames()[2]).toEqual({ type: 'about', servesApp: false });
    expect(link.hostId).toBe(identity.hostId);
    expect(h.board.local(identity.hostId)).toBe(link);
    expect(h.metrics.get('tether_relay_connections_accepted_total', { kind: 'host' })).toBe(1);
    expect(h.board.census).toMatchObject({ open: 1, pending: 0 });
  });

  it('refuses an answer signed by a key other than the one it presents', () => {
    const h = harness();
    const port = new FakePort();
    h.board.acceptHost(port);
    const real = generateHostIdentity(seededRandom('a'));
    const other = generateHostIdentity(seededRandom('b'));
    const answer = answerRelayChallenge(port.sent[0]!, other.sign, { relayUrl: ORIGIN, clock: h.clock });
    if (!answer.ok) throw new Error('unexpected');
    const swapped = answer.value.slice();
    swapped.set(real.sign.publicKey, 2);
    port.deliver(swapped);
    expect(port.closedWith).toEqual({ code: RelayCloseCode.AuthFailed, reason: 'auth-failed' });
    expect(h.board.local(real.hostId)).toBeUndefined();
    expect(h.metrics.refusals('auth-failed')).toBe(1);
  });

  it('refuses garbage, text and oversized first messages with their own reasons', () => {
    const h = harness();
    const cases: [Uint8Array, boolean, number, string][] = [
      [Uint8Array.of(1, 2, 3), true, RelayCloseCode.AuthFailed, 'auth-malformed'],
      [Uint8Array.of(9, 2), true, CloseCode.VersionUnsupported, 'version-unsupported'],
      [utf8Encode('hello'), false, CloseCode.ProtocolError, 'text-message'],
      [new Uint8Array(2000), true, RelayCloseCode.TooLarge, 'preauth-too-large'],
    ];
    for (const [bytes, binary, code, reason] of cases) {
      const port = new FakePort();
      h.board.acceptHost(port);
      expect(port.maxMessage).toBe(1024);
      port.deliver(bytes, binary);
      expect(port.closedWith, reason).toEqual({ code, reason });
      expect(h.metrics.refusals(reason as 'auth-malformed')).toBe(1);
    }
    expect(h.board.census).toMatchObject({ open: 0, pending: 0 });
  });

  it('closes a link that does not answer within the deadline', () => {
    const h = harness();
    const port = new FakePort();
    h.board.acceptHost(port);
    h.clock.advance(9_999);
    expect(port.closedWith).toBeUndefined();
    h.clock.advance(1);
    expect(port.closedWith).toEqual({ code: RelayCloseCode.AuthTimeout, reason: 'auth-timeout' });
    expect(h.metrics.refusals('auth-timeout')).toBe(1);
  });

  it('pings every 25 s and closes a host not heard from within 75 s', () => {
    const h = harness();
    const { port } = h.host();
    h.clock.advance(25_000);
    expect(port.framesOf('ping')).toHaveLength(1);
    h.clock.advance(49_999);
    expect(port.closedWith).toBeUndefined();
    h.clock.advance(1);
    expect(port.closedWith).toEqual({ code: CloseCode.PingTimeout, reason: 'ping-timeout' });
    expect(h.metrics.drops('ping-timeout')).toBe(1);
  });

  it('keeps a host that answers its pings', () => {
    const h = harness();
    const { port } = h.host();
    for (let i = 0; i < 10; i++) {
      h.clock.advance(25_000);
      port.deliver(frame({ type: 'pong', nonce: new Uint8Array(8) }));
    }
    expect(port.closedWith).toBeUndefined();
  });

  it("answers the host's pings", () => {
    const h = harness();
    const { port } = h.host();
    const nonce = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8);
    port.deliver(frame({ type: 'ping', nonce }));
    expect(port.framesOf('pong')).toEqual([{ type: 'pong', nonce }]);
  });

  it('skips an unknown frame type, and closes on malformed or out-of-place frames', () => {
    const h = harness();
    const a = h.host();
    a.port.deliver(Uint8Array.of(1, 0x7e, 0, 0));
    expect(a.port.closedWith).toBeUndefined();
    expect(h.metrics.drops('unknown-frame-type')).toBe(1);
    a.port.deliver(Uint8Array.of(1, RelayFrameType.Data, 0));
    expect(a.port.closedWith).toEqual({ code: CloseCode.ProtocolError, reason: 'frame-malformed' });

    const b = h.host();
    b.port.deliver(frame({ type: 'open', connId: 1, kind: 'device', deviceId: 'A'.repeat(22), source: 'x' }));
    expect(b.port.closedWith).toEqual({ code: CloseCode.ProtocolError, reason: 'unexpected-frame' });
    expect(h.metrics.drops('unexpected-frame')).toBe(1);
  });

  it('counts and drops data for a connection it does not have', () => {
    const h = harness();
    const { port } = h.host();
    port.deliver(frame({ type: 'data', connId: 99, payload: Uint8Array.of(1) }));
    expect(port.closedWith).toBeUndefined();
    expect(h.metrics.drops('unknown-conn')).toBe(1);
  });

  it('one link per host: a newer link replaces the older, whose devices are told the host is gone', async () => {
    const h = harness();
    const first = h.host();
    const dev = await h.device(first.identity);
    const second = h.host(first.identity);
    expect(first.port.closedWith).toEqual({ code: RelayCloseCode.Replaced, reason: 'replaced' });
    expect(dev.port.closedWith).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    expect(h.board.local(first.identity.hostId)).toBe(second.link);
    expect(h.board.hostCount).toBe(1);
    expect(h.metrics.drops('replaced')).toBe(1);
    // The newer link serves the next device.
    const next = await h.device(first.identity);
    expect(next.port.closedWith).toBeUndefined();
    expect(second.port.framesOf('open')).toHaveLength(1);
  });

  it('closes a host link that lets its outbox overflow', async () => {
    const h = harness({ hostOutboxBytes: 1000, hostOutboxFrames: 100, hostShareBytes: 600, hostShareFrames: 100 });
    const { port, identity } = h.host();
    port.slow = true;
    const devices = [await h.device(identity), await h.device(identity)];
    devices[0]!.port.deliver(new Uint8Array(500));
    devices[1]!.port.deliver(new Uint8Array(500));
    expect(port.closedWith).toEqual({ code: CloseCode.SlowConsumer, reason: 'host-link-slow' });
    expect(h.metrics.drops('host-link-slow')).toBe(1);
    for (const d of devices) expect(d.port.closedWith).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    expect(h.board.budget.used).toBe(0);
  });
});

describe('requests through a host link', () => {
  it('forwards a pair request with its source and passes the reply back', async () => {
    const h = harness();
    const { port, link } = h.host();
    const pending = link.request('pair', '203.0.113.5', utf8Encode('{"v":1}'));
    const [req] = port.framesOf('pair-request');
    expect(req).toMatchObject({ source: '203.0.113.5', body: utf8Encode('{"v":1}') });
    port.deliver(frame({ type: 'reply', reqId: req!.reqId, status: 200, body: utf8Encode('{"ok":1}') }));
    expect(await pending).toEqual({ ok: true, value: { status: 200, body: utf8Encode('{"ok":1}') } });
    expect(h.metrics.get('tether_relay_replies_total', { kind: 'pair' })).toBe(1);
  });

  it('times out, counts a late reply, and bounds how many wait per host', async () => {
    const h = harness({ maxPendingRequestsPerHost: 2 });
    const { port, link } = h.host();
    const a = link.request('call', 's', new Uint8Array(1));
    const b = link.request('call', 's', new Uint8Array(1));
    expect(await link.request('call', 's', new Uint8Array(1))).toMatchObject({ ok: false, error: { code: 'busy' } });
    h.clock.advance(20_000);
    expect(await a).toMatchObject({ ok: false, error: { code: 'timeout' } });
    expect(await b).toMatchObject({ ok: false, error: { code: 'timeout' } });
    const [req] = port.framesOf('call-request');
    port.deliver(frame({ type: 'reply', reqId: req!.reqId, status: 200, body: new Uint8Array(0) }));
    expect(h.metrics.drops('reply-unknown-request')).toBe(1);
    expect(h.metrics.refusals('request-timeout')).toBe(2);
    expect(h.board.requests.size).toBe(0);
  });

  it('fails waiting requests when the link closes, and gives up when the caller does', async () => {
    const h = harness();
    const { port, link } = h.host();
    const abort = new AbortController();
    const aborted = link.request('pair', 's', new Uint8Array(1), abort.signal);
    abort.abort();
    expect(await aborted).toMatchObject({ ok: false, error: { code: 'disconnected' } });
    const waiting = link.request('pair', 's', new Uint8Array(1));
    port.hangUp();
    expect(await waiting).toMatchObject({ ok: false, error: { code: 'host-offline' } });
    expect(h.board.requests.size).toBe(0);
  });
});
