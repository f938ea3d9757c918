import { CloseCode, RelayCloseCode, encodeRelayFrame, utf8Encode } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { RelayLimits } from '../limits.js';
import { harness, settle } from '../testing/harness.js';
import { MemoryNetwork } from '../testing/memory-backplane.js';
import { ClusterRouter } from './cluster-router.js';
import { CLUSTER_VERSION, decodeClusterMessage, encodeClusterMessage } from './cluster-message.js';

/** Two nodes on one in-memory backplane and one manual clock. */
function cluster(limits: Partial<RelayLimits> = {}) {
  const clock = new ManualClock();
  const net = new MemoryNetwork();
  const node = (id: string) => {
    const h = harness(limits, clock);
    const backplane = net.join(id);
    const router = new ClusterRouter({ backplane, clock, limits: h.limits, metrics: h.metrics, local: h.board });
    h.board.cluster = router;
    return { ...h, backplane, router };
  };
  return { clock, net, a: node('node-a'), b: node('node-b') };
}

const frame = (f: Parameters<typeof encodeRelayFrame>[0]) => {
  const r = encodeRelayFrame(f);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe('cluster router', () => {
  it('connects a device on one node to its host on another, both ways', async () => {
    const { a, b } = cluster();
    const host = a.host();
    await settle();
    const dev = await b.device(host.identity, '203.0.113.77');
    const [open] = host.port.framesOf('open');
    expect(open).toMatchObject({ deviceId: dev.deviceId, source: '203.0.113.77' });
    dev.port.deliver(Uint8Array.of(1, 2, 3));
    await settle();
    expect(host.port.framesOf('data')).toEqual([
      { type: 'data', connId: open!.connId, payload: Uint8Array.of(1, 2, 3) },
    ]);
    host.port.deliver(frame({ type: 'data', connId: open!.connId, payload: Uint8Array.of(9) }));
    await settle();
    expect(dev.port.sent).toEqual([Uint8Array.of(9)]);
    expect(a.metrics.get('tether_relay_cluster_messages_total', { direction: 'in', path: 'redis' })).toBeGreaterThan(0);

    // Closing travels both ways: the device leaves, the host hears it.
    dev.port.hangUp(1000, 'bye');
    await settle();
    expect(host.port.framesOf('close')).toEqual([{ type: 'close', connId: open!.connId, code: 1000, reason: 'bye' }]);
    expect(a.router.streams).toEqual({ out: 0, in: 0 });
    expect(b.router.streams).toEqual({ out: 0, in: 0 });
  });

  it("passes the host's close to the device on the other node", async () => {
    const { a, b } = cluster();
    const host = a.host();
    await settle();
    const dev = await b.device(host.identity);
    const [open] = host.port.framesOf('open');
    host.port.deliver(frame({ type: 'close', connId: open!.connId, code: 4001, reason: 'handshake-failed' }));
    await settle();
    expect(dev.port.closedWith).toEqual({ code: 4001, reason: 'handshake-failed' });
    expect(b.router.streams.out).toBe(0);
  });

  it('says busy when the host on the other node has its maximum of devices', async () => {
    const { a, b } = cluster({ maxDeviceConnsPerHost: 1 });
    const host = a.host();
    await settle();
    const first = await b.device(host.identity);
    const second = await b.device(host.identity);
    expect(first.port.closedWith).toBeUndefined();
    expect(second.port.closedWith).toEqual({ code: CloseCode.Busy, reason: 'host-full' });
  });

  it('refuses a device whose host is nowhere', async () => {
    const { a, b } = cluster();
    const gone = a.host();
    await settle();
    gone.port.hangUp();
    await settle();
    const dev = await b.device(gone.identity);
    expect(dev.port.closedWith).toEqual({ code: RelayCloseCode.HostOffline, reason: 'host-offline' });
  });

  it('two links for one host come up on two nodes at once: the later claim holds it everywhere, the earlier yields', async () => {
    const { net, a, b } = cluster();
    const identity = a.host().identity;
    // Neither claim reaches the store, nor either announcement, before both links are up.
    a.backplane.hold = true;
    b.backplane.hold = true;
    const first = a.host(identity);
    const second = b.host(identity);
    await settle();
    a.backplane.hold = false;
    b.backplane.hold = false;
    a.backplane.flush(); // a's claim runs first (generation 2 after the link above), then b's (3)
    b.backplane.flush();
    await settle();
    a.backplane.flush();
    b.backplane.flush();
    await settle();
    expect(net.presence.get(identity.hostId)).toEqual({ node: 'node-b', gen: 3 });
    expect(first.port.closedWith).toEqual({ code: RelayCloseCode.Replaced, reason: 'replaced' });
    expect(second.port.closedWith).toBeUndefined();
    // A device on either node finds the host on b.
    for (const node of [a, b]) {
      const dev = await node.device(identity);
      expect(dev.port.closedWith).toBeUndefined();
    }
    expect(second.port.framesOf('open')).toHaveLength(2);
  });

  it('moves with the host: when its link lands on another node, the old link and its streams close', async () => {
    const { a, b } = cluster();
    const first = a.host();
    await settle();
    const dev = await b.device(first.identity);
    const second = b.host(first.identity); // the host relinks, to node b this time
    await settle();
    expect(dev.port.closedWith).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    expect(first.port.closedWith).toEqual({ code: RelayCloseCode.Replaced, reason: 'replaced' });
    const again = await b.device(first.identity);
    expect(again.port.closedWith).toBeUndefined();
    expect(second.port.framesOf('open')).toHaveLength(1);
  });

  it('closes streams with a node that stops heartbeating', async () => {
    const { a, b, net, clock } = cluster();
    const host = a.host();
    await settle();
    const dev = await b.device(host.identity);
    net.alive.delete('node-a');
    clock.advance(b.limits.nodeHeartbeatMs);
    await settle();
    expect(dev.port.closedWith).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    expect(b.metrics.drops('node-gone')).toBe(1);
  });

  it('bounds what a stream has in flight through the backplane', async () => {
    const { a, b } = cluster({ clusterStreamInflightBytes: 4096 });
    const host = a.host();
    await settle();
    const dev = await b.device(host.identity);
    b.backplane.hold = true; // Redis stops acknowledging
    for (let i = 0; i < 10 && !dev.port.isClosed; i++) dev.port.deliver(new Uint8Array(1024));
    expect(dev.port.closedWith).toEqual({ code: CloseCode.SlowConsumer, reason: 'cluster-queue-full' });
    expect(b.router.inflightBytes).toBeLessThanOrEqual(4096);
    b.backplane.hold = false;
    b.backplane.flush();
    await settle();
    expect(b.router.inflightBytes).toBe(0);
    // The host heard the device is gone, after the data that did get through.
    expect(host.port.framesOf('close')[0]).toMatchObject({
      code: CloseCode.SlowConsumer,
      reason: 'cluster-queue-full',
    });
  });

  it('closes every stream when the subscription drops (messages may be lost)', async () => {
    const { a, b } = cluster();
    const host = a.host();
    await settle();
    const dev = await b.device(host.identity);
    b.backplane.onLost?.();
    await settle();
    expect(dev.port.closedWith).toEqual({ code: RelayCloseCode.HostGone, reason: 'cluster-link-lost' });
    expect(host.port.framesOf('close')).toHaveLength(1);
  });

  it('forwards pair requests to the node holding the host and brings the reply back', async () => {
    const { a, b, clock } = cluster();
    const host = a.host();
    await settle();
    const pending = b.board.request('pair', host.identity.hostId, '203.0.113.5', utf8Encode('{}'));
    await settle();
    const [req] = host.port.framesOf('pair-request');
    expect(req).toMatchObject({ source: '203.0.113.5' });
    host.port.deliver(frame({ type: 'reply', reqId: req!.reqId, status: 201, body: utf8Encode('ok') }));
    await settle();
    expect(await pending).toEqual({ ok: true, value: { status: 201, body: utf8Encode('ok') } });

    const slow = b.board.request('call', host.identity.hostId, 's', new Uint8Array(1));
    await settle();
    clock.advance(b.limits.callReplyWaitMs);
    await settle();
    expect(await slow).toMatchObject({ ok: false, error: { code: 'timeout' } });
    expect(b.board.requests.size).toBe(0);
  });

  it('refuses malformed messages from the backplane, counted', () => {
    const { b } = cluster();
    b.backplane.onMessage?.(Uint8Array.of(1, 2, 3));
    expect(b.metrics.drops('cluster-malformed')).toBe(1);
  });
});

describe('cluster messages', () => {
  it('round-trip; fixed-size ones refuse trailing bytes', () => {
    const A = 'A'.repeat(22);
    const B = 'B'.repeat(21) + 'A';
    const messages = [
      { type: 'open', streamId: 7, hostId: A, deviceId: B, source: '::1' },
      { type: 'opened', streamId: 7 },
      { type: 'to-host', streamId: 1, payload: Uint8Array.of(1, 2) },
      { type: 'to-device', streamId: 1, payload: new Uint8Array(0) },
      { type: 'device-closed', streamId: 1, code: 1000, reason: '' },
      { type: 'host-closed', streamId: 1, code: 4008, reason: 'slow-consumer' },
      { type: 'request', reqId: 3, kind: 'call', hostId: A, source: 'x', body: Uint8Array.of(5) },
      { type: 'reply', reqId: 3, status: 200, body: new Uint8Array(0) },
      { type: 'failure', reqId: 3, code: 'host-offline' },
      { type: 'claim', hostId: B, gen: 2 ** 40 + 5 },
    ] as const;
    for (const m of messages) {
      const bytes = encodeClusterMessage('node-x', m);
      expect(decodeClusterMessage(bytes), m.type).toEqual({ ok: true, value: { from: 'node-x', message: m } });
      if (m.type === 'open' || m.type === 'opened' || m.type === 'claim') {
        const longer = new Uint8Array(bytes.length + 1);
        longer.set(bytes);
        expect(decodeClusterMessage(longer).ok, m.type).toBe(false);
      }
    }
    for (const bad of [new Uint8Array(0), Uint8Array.of(3, 1, 0), Uint8Array.of(2, 99, 1, 0x61)]) {
      expect(decodeClusterMessage(bad).ok).toBe(false);
    }
  });
  it('lays out stream data as version, type, node id, stream id, payload, whichever node sends it', () => {
    const payload = Uint8Array.of(9, 8, 7);
    for (const from of ['node-x', 'nœud-y', 'node-x']) {
      const id = new TextEncoder().encode(from);
      const bytes = encodeClusterMessage(from, { type: 'to-device', streamId: 0x01020304, payload });
      expect([...bytes]).toEqual([CLUSTER_VERSION, 4, id.length, ...id, 1, 2, 3, 4, 9, 8, 7]);
      expect(decodeClusterMessage(bytes)).toEqual({
        ok: true,
        value: { from, message: { type: 'to-device', streamId: 0x01020304, payload } },
      });
    }
  });
});
