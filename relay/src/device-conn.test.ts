import {
  CloseCode,
  RelayCloseCode,
  encodeConnectRequest,
  encodeRelayFrame,
  generateDeviceId,
  generateHostIdentity,
  signRelayTicket,
  utf8Encode,
} from '@tether/shared-protocol';
import { seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { FakePort } from './testing/fake-port.js';
import { harness, settle } from './testing/harness.js';

const frame = (f: Parameters<typeof encodeRelayFrame>[0]) => {
  const r = encodeRelayFrame(f);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe('device connection', () => {
  it("opens a connection on the host's link and carries bytes both ways unchanged", async () => {
    const h = harness();
    const host = h.host();
    const dev = await h.device(host.identity, '203.0.113.9');
    const [open] = host.port.framesOf('open');
    expect(open).toEqual({
      type: 'open',
      connId: open!.connId,
      kind: 'device',
      deviceId: dev.deviceId,
      source: '203.0.113.9',
    });
    expect(dev.port.maxMessage).toBeGreaterThan(1024 * 1024);

    const hello = Uint8Array.of(0x01, 1, 2, 3);
    dev.port.deliver(hello);
    expect(host.port.framesOf('data')).toEqual([{ type: 'data', connId: open!.connId, payload: hello }]);
    const welcome = Uint8Array.of(0x02, 9, 8);
    host.port.deliver(frame({ type: 'data', connId: open!.connId, payload: welcome }));
    expect(dev.port.sent).toEqual([welcome]);
    expect(h.metrics.get('tether_relay_frames_total', { direction: 'to-host' })).toBe(1);
    expect(h.metrics.get('tether_relay_bytes_total', { direction: 'to-device' })).toBe(3);
    expect(h.metrics.get('tether_relay_connections_accepted_total', { kind: 'device' })).toBe(1);
  });

  it('refuses each bad ticket with its own reason, and the host never hears of it', () => {
    const h = harness();
    const host = h.host();
    const other = generateHostIdentity(seededRandom('other host'));
    const deviceId = generateDeviceId(h.random);
    const connect = (key: Uint8Array, ticket: Uint8Array) => {
      const r = encodeConnectRequest(key, ticket);
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    };
    const good = signRelayTicket({ deviceId, expiresAt: h.clock.now() + 1000 }, host.identity.sign);
    const tampered = good.slice();
    tampered[20]! ^= 1;
    const cases: [Uint8Array, number, string][] = [
      [
        connect(
          host.identity.sign.publicKey,
          signRelayTicket({ deviceId, expiresAt: h.clock.now() - 200_000 }, host.identity.sign),
        ),
        RelayCloseCode.TicketExpired,
        'ticket-expired',
      ],
      [connect(host.identity.sign.publicKey, tampered), RelayCloseCode.TicketRefused, 'ticket-forged'],
      [connect(other.sign.publicKey, good), RelayCloseCode.TicketRefused, 'ticket-key-mismatch'],
      [
        frame({
          type: 'connect',
          hostSignPublicKey: host.identity.sign.publicKey,
          ticket: new Uint8Array(105).fill(1),
        }),
        RelayCloseCode.TicketRefused,
        'ticket-malformed',
      ],
      [frame({ type: 'ping', nonce: new Uint8Array(8) }), CloseCode.ProtocolError, 'auth-malformed'],
    ];
    for (const [bytes, code, reason] of cases) {
      const port = new FakePort();
      h.board.acceptDevice(port, host.identity.hostId);
      port.deliver(bytes);
      expect(port.closedWith, reason).toEqual({ code, reason });
      expect(h.metrics.refusals(reason as 'ticket-expired'), reason).toBe(1);
    }
    // A ticket for another host presented at this host's address.
    const port = new FakePort();
    h.board.acceptDevice(port, host.identity.hostId);
    port.deliver(
      connect(host.identity.sign.publicKey, signRelayTicket({ deviceId, expiresAt: h.clock.now() + 1000 }, other.sign)),
    );
    expect(port.closedWith).toEqual({ code: RelayCloseCode.TicketRefused, reason: 'ticket-wrong-host' });
    expect(host.port.framesOf('open')).toEqual([]);
  });

  it('says the host is offline when it has no link, and busy when it has too many devices', async () => {
    const h = harness({ maxDeviceConnsPerHost: 1 });
    const offline = generateHostIdentity(seededRandom('offline'));
    const lone = await h.device(offline);
    expect(lone.port.closedWith).toEqual({ code: RelayCloseCode.HostOffline, reason: 'host-offline' });
    const host = h.host();
    const first = await h.device(host.identity);
    const second = await h.device(host.identity);
    expect(first.port.closedWith).toBeUndefined();
    expect(second.port.closedWith).toEqual({ code: CloseCode.Busy, reason: 'host-full' });
    expect(h.metrics.refusals('host-offline')).toBe(1);
    expect(h.metrics.refusals('host-full')).toBe(1);
  });

  it('tells the host when the device leaves, and closes the device with the code the host chose', async () => {
    const h = harness();
    const host = h.host();
    const a = await h.device(host.identity);
    const b = await h.device(host.identity);
    const [openA, openB] = host.port.framesOf('open');
    a.port.hangUp(1000, 'bye');
    expect(host.port.framesOf('close')).toEqual([{ type: 'close', connId: openA!.connId, code: 1000, reason: 'bye' }]);
    // A refused handshake travels through unchanged: the device learns it must pair again.
    host.port.deliver(frame({ type: 'close', connId: openB!.connId, code: 4001, reason: 'handshake-failed' }));
    expect(b.port.closedWith).toEqual({ code: 4001, reason: 'handshake-failed' });
    expect(host.port.framesOf('close')).toHaveLength(1); // no echo back to the host
  });

  it('reports an abnormal device close to the host as going away', async () => {
    const h = harness();
    const host = h.host();
    const dev = await h.device(host.identity);
    dev.port.terminate();
    expect(host.port.framesOf('close')[0]).toMatchObject({ code: 1001 });
  });

  it('closes a device that cannot keep up, tells its host, and never holds more than its outbox', async () => {
    const h = harness({ deviceOutboxBytes: 10_000, deviceOutboxFrames: 1000 });
    const host = h.host();
    const dev = await h.device(host.identity);
    const [open] = host.port.framesOf('open');
    dev.port.slow = true;
    for (let i = 0; i < 30 && !dev.port.isClosed; i++) {
      host.port.deliver(frame({ type: 'data', connId: open!.connId, payload: new Uint8Array(1000) }));
    }
    expect(dev.port.closedWith).toEqual({ code: CloseCode.SlowConsumer, reason: 'slow-consumer' });
    expect(host.port.framesOf('close')).toEqual([
      { type: 'close', connId: open!.connId, code: CloseCode.SlowConsumer, reason: 'slow-consumer' },
    ]);
    expect(dev.conn.peer.outbox.highWater).toBeLessThanOrEqual(10_000);
    expect(h.metrics.drops('slow-consumer')).toBe(1);
    expect(h.board.budget.used).toBe(0);
    expect(host.port.closedWith).toBeUndefined();
  });

  it("closes a device that floods its host's link past its share, and only that device", async () => {
    const share = 8 * 1024;
    const h = harness({ hostShareBytes: share, hostOutboxBytes: 64 * 1024 });
    const host = h.host();
    const flooder = await h.device(host.identity);
    const quiet = await h.device(host.identity);
    const [openF, openQ] = host.port.framesOf('open');
    host.port.slow = true; // the host stops reading
    let sent = 0;
    while (!flooder.port.isClosed && sent < 1000) {
      flooder.port.deliver(new Uint8Array(1024));
      sent++;
    }
    expect(flooder.port.closedWith).toEqual({ code: CloseCode.SlowConsumer, reason: 'host-queue-full' });
    expect(sent).toBeLessThan(20);
    expect(host.link.peer.outbox.ownerBytes(openF!.connId)).toBeLessThanOrEqual(share);
    expect(host.link.peer.outbox.highWater).toBeLessThanOrEqual(share + 1024);
    expect(h.metrics.drops('host-queue-full')).toBe(1);
    // The quiet device and the link carry on; the host learns the flooder is gone after its data.
    quiet.port.deliver(Uint8Array.of(7));
    host.port.flush();
    const frames = host.port.frames();
    const closeAt = frames.findIndex((f) => f.type === 'close' && f.connId === openF!.connId);
    expect(closeAt).toBeGreaterThan(frames.findIndex((f) => f.type === 'data' && f.connId === openF!.connId));
    expect(host.port.framesOf('data').at(-1)).toEqual({
      type: 'data',
      connId: openQ!.connId,
      payload: Uint8Array.of(7),
    });
    expect(quiet.port.closedWith).toBeUndefined();
    expect(host.port.closedWith).toBeUndefined();
  });

  it('pauses a device over its byte rate and resumes it when its bucket refills', async () => {
    const h = harness({ deviceBytesPerSecond: 1000, deviceBurstBytes: 2000 });
    const host = h.host();
    const dev = await h.device(host.identity);
    const left = 2000 - h.connectRequest(host.identity).bytes.length; // the connect request counts too
    dev.port.deliver(new Uint8Array(left));
    expect(dev.port.paused).toBe(false);
    dev.port.deliver(new Uint8Array(500)); // 500 bytes of debt: half a second
    expect(dev.port.paused).toBe(true);
    expect(h.metrics.get('tether_relay_throttled_total', { kind: 'device' })).toBe(1);
    h.clock.advance(499);
    expect(dev.port.paused).toBe(true);
    h.clock.advance(1);
    expect(dev.port.paused).toBe(false);
    // Nothing was lost: the host got both messages.
    expect(host.port.framesOf('data').map((d) => d.payload.length)).toEqual([left, 500]);
  });

  it('holds what arrives while its host is looked up, within a bound', async () => {
    const h = harness({ attachBufferFrames: 2 });
    const host = h.host();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const original = h.board.attach.bind(h.board);
    h.board.attach = async (...args) => {
      await gate;
      return original(...args);
    };
    const port = new FakePort();
    h.board.acceptDevice(port, host.identity.hostId);
    port.deliver(h.connectRequest(host.identity).bytes);
    expect(port.paused).toBe(true);
    port.deliver(utf8Encode('hello'));
    release();
    await settle();
    expect(port.paused).toBe(false);
    expect(host.port.framesOf('data').map((d) => d.payload)).toEqual([utf8Encode('hello')]);

    // A client that keeps sending while paused is cut off.
    const greedy = new FakePort();
    let hold!: () => void;
    const stuck = new Promise<void>((r) => (hold = r));
    h.board.attach = async (...args) => {
      await stuck;
      return original(...args);
    };
    h.board.acceptDevice(greedy, host.identity.hostId);
    greedy.deliver(h.connectRequest(host.identity).bytes);
    for (let i = 0; i < 3; i++) greedy.deliver(Uint8Array.of(i));
    expect(greedy.closedWith).toEqual({ code: CloseCode.ProtocolError, reason: 'attach-overflow' });
    hold();
    await settle();
    expect(host.port.framesOf('open')).toHaveLength(1 + 0 + 1);
    expect(host.port.framesOf('close')).toHaveLength(1); // the greedy one, closed as soon as it attached
  });

  it('refuses text messages after authentication as a protocol error', async () => {
    const h = harness();
    const host = h.host();
    const dev = await h.device(host.identity);
    dev.port.deliver(utf8Encode('hi'), false);
    expect(dev.port.closedWith).toEqual({ code: CloseCode.ProtocolError, reason: 'text-message' });
    expect(h.metrics.drops('text-message')).toBe(1);
  });

  it('pings devices with WebSocket pings and closes a silent one after 75 s', async () => {
    const h = harness();
    const host = h.host();
    const dev = await h.device(host.identity);
    const hostPong = () => host.port.deliver(frame({ type: 'pong', nonce: new Uint8Array(8) }));
    h.clock.advance(50_000);
    hostPong();
    expect(dev.port.pings).toBe(2);
    dev.port.pong(); // heard at 50 s: the deadline is 125 s
    for (let t = 0; t < 74_000; t += 1000) {
      h.clock.advance(1000);
      hostPong();
    }
    h.clock.advance(999);
    expect(dev.port.closedWith).toBeUndefined();
    h.clock.advance(1);
    expect(dev.port.closedWith).toEqual({ code: CloseCode.PingTimeout, reason: 'ping-timeout' });
    expect(host.port.closedWith).toBeUndefined();
    expect(host.port.framesOf('close')[0]).toMatchObject({ code: CloseCode.PingTimeout, reason: 'ping-timeout' });
  });
});
