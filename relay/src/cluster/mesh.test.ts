import { generateHostIdentity, toBase64Url } from '@tether/shared-protocol';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RelayLimits } from '../limits.js';
import type { RelayServer } from '../relay-server.js';
import { RelayServer as Relay } from '../relay-server.js';
import { FakeDevice, FakeHost, until } from '../testing/clients.js';
import { redisNodes } from '../testing/redis-nodes.js';
import { MeshCloseCode } from './mesh-link.js';
import { isMeshAddress, parseMeshAddress } from './mesh-auth.js';
import { nodeKey } from './redis-keys.js';

/**
 * Two relay nodes with a mesh, on a real redis-server on 127.0.0.1: stream data goes over the
 * link between them, Redis keeps presence and claims, and a node that cannot reach its peer sends
 * through Redis.
 */

const cluster = redisNodes();
const KEY = randomBytes(32);
const mesh = (key: Uint8Array = KEY) => ({ key, host: '127.0.0.1', port: 0 });
const meshNode = (key?: Uint8Array, limits: Partial<RelayLimits> = {}) => cluster.node(limits, undefined, mesh(key));
/** A heartbeat this slow leaves what a test writes into the node's key there for a while. */
const slowBeat = (ms: number): Partial<RelayLimits> => ({ nodeHeartbeatMs: ms, nodeTtlMs: ms * 4 });

const count = (relay: RelayServer, direction: 'out' | 'in', path: 'direct' | 'redis') =>
  relay.metrics.get('tether_relay_cluster_messages_total', { direction, path });

/** Messages Redis carries on the node channels (`tether:relay:to:*`), seen by a subscriber of its own. */
async function watchNodeChannels(): Promise<{ seen: () => number; stop: () => Promise<void> }> {
  const client = createClient({ url: cluster.url });
  await client.connect();
  let seen = 0;
  await client.pSubscribe('tether:relay:to:*', () => seen++);
  return { seen: () => seen, stop: async () => void (await client.quit()) };
}

/** A host on `a` echoing, a device on `b`: sends `n` numbered messages, each checked on its way back. */
async function pair(a: RelayServer, b: RelayServer) {
  const identity = generateHostIdentity();
  const h = cluster.track(await FakeHost.connect(a.url, identity));
  h.echo = true;
  const d = await device(b, h);
  return { h, d, identity };
}

/** A device on `relay` for `h`'s host, once the host has its open (bytes sent before then wait in a small buffer). */
async function device(relay: RelayServer, h: FakeHost): Promise<FakeDevice> {
  const opens = h.conns.size;
  const d = cluster.track(await FakeDevice.connect(relay.url, h.identity));
  await until(() => h.conns.size > opens, 'the open at the host');
  return d;
}

/** Writes `address` into `relay`'s heartbeat key, as its own heartbeat does (until the next one). */
async function advertise(relay: RelayServer, address: string): Promise<void> {
  const client = createClient({ url: cluster.url });
  await client.connect();
  await client.set(nodeKey(relay.nodeId), address, { PX: 60_000 });
  await client.quit();
}

const numbered = (i: number) => Uint8Array.of(i >> 8, i & 0xff, ...new Uint8Array(1000).fill(i & 0xff));
const numberOf = (bytes: Uint8Array) => (bytes[0]! << 8) | bytes[1]!;

describe('relay mesh', () => {
  it('carries a stream between two nodes over their link, never through Redis pub/sub', async () => {
    const a = await meshNode();
    const b = await meshNode();
    expect(parseMeshAddress(a.cluster!.meshAddress!)).toBeDefined();
    const watch = await watchNodeChannels();
    const { h, d } = await pair(a, b);
    for (let i = 0; i < 200; i++) d.send(numbered(i));
    await until(() => d.received.length === 200, 'the echoes');
    expect(d.received.map(numberOf)).toEqual([...Array(200).keys()]);
    expect(h.received(h.lastConn).map(numberOf)).toEqual([...Array(200).keys()]);
    expect(watch.seen()).toBe(0);
    await watch.stop();
    for (const n of [a, b]) expect(count(n, 'out', 'redis') + count(n, 'in', 'redis')).toBeLessThanOrEqual(2);
    expect(count(b, 'out', 'direct')).toBeGreaterThanOrEqual(201);
    expect(count(a, 'in', 'direct')).toBe(count(b, 'out', 'direct'));
    expect(count(a, 'out', 'direct')).toBeGreaterThanOrEqual(201);
    expect(a.metrics.render()).toMatch(/tether_relay_mesh_links 1/);
  });

  it('falls back to Redis when the link to the peer drops mid-stream: nothing lost, doubled or reordered', async () => {
    const a = await meshNode();
    const b = await meshNode();
    const { h, d } = await pair(a, b);
    for (let i = 0; i < 50; i++) d.send(numbered(i));
    await until(() => d.received.length >= 10, 'echoes under way');
    // a stops taking links: b's link to it drops, and b cannot dial it again.
    await a.cluster!.listener!.close();
    const closed = await d.done;
    expect(closed.reason).toBe('mesh-link-lost');
    // What came through before the drop came once each, in order, with no gap.
    const first = d.received.map(numberOf);
    expect(first).toEqual([...Array(first.length).keys()]);
    const atHost = h.received([...h.conns.keys()][0]!).map(numberOf);
    expect(atHost).toEqual([...Array(atHost.length).keys()]);
    expect(b.metrics.drops('mesh-link-lost')).toBeGreaterThanOrEqual(1);

    // The device comes back: its stream to the host runs through Redis now, whole.
    const redisBefore = count(b, 'out', 'redis');
    const again = await device(b, h);
    for (let i = 0; i < 100; i++) again.send(numbered(i));
    await until(() => again.received.length === 100, 'the echoes through Redis');
    expect(again.received.map(numberOf)).toEqual([...Array(100).keys()]);
    expect(h.received(h.lastConn).map(numberOf)).toEqual([...Array(100).keys()]);
    expect(count(b, 'out', 'redis') - redisBefore).toBeGreaterThanOrEqual(101);
  });

  it('takes a link to a peer once it can dial it, resetting the streams that went through Redis', async () => {
    const a = await meshNode(undefined, slowBeat(3_000));
    const b = await meshNode();
    // A stale address in a's heartbeat key: b's first dial fails, and b reaches a through Redis.
    await advertise(a, '127.0.0.1:1');
    const { h, d } = await pair(a, b);
    d.send(numbered(0));
    await until(() => d.received.length === 1, 'the echo through Redis');
    expect(count(b, 'out', 'direct')).toBe(0);
    // a's next heartbeat (within 3 s) advertises its listener again; b dials it 5 s after
    // its failed dial, at its next message, and the stream that crossed Redis is reset.
    for (let i = 1; d.closed === undefined && i < 60; i++) {
      d.send(numbered(i));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(d.closed?.reason).toBe('mesh-link-lost');
    const echoed = d.received.map(numberOf);
    expect(echoed).toEqual([...Array(echoed.length).keys()]);
    const again = await device(b, h);
    again.send(numbered(1));
    await until(() => again.received.length === 1, 'the echo over the link');
    expect(count(b, 'out', 'direct')).toBeGreaterThan(0);
  }, 20_000);

  it('refuses a peer with another key, and the two nodes still talk through Redis', async () => {
    const a = await meshNode();
    const b = await meshNode(randomBytes(32));
    const { d } = await pair(a, b);
    d.send(numbered(7));
    await until(() => d.received.length === 1, 'the echo through Redis');
    expect(a.metrics.refusals('mesh-unauthorized')).toBe(1);
    expect(count(b, 'out', 'direct')).toBe(0);
    expect(count(b, 'out', 'redis')).toBeGreaterThanOrEqual(2);
  });

  it('refuses a dialer that cannot prove the key, or sends data before it has, with a stable close code', async () => {
    const a = await meshNode();
    const address = a.cluster!.meshAddress!;
    const dial = (first: string | Uint8Array) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://${address}/`);
        ws.once('message', () => ws.send(first));
        ws.on('close', (code) => resolve(code));
      });
    const guess = toBase64Url(randomBytes(32));
    expect(await dial(JSON.stringify({ t: 'proof', node: 'stranger', nonce: guess, mac: guess }))).toBe(
      MeshCloseCode.Unauthorized,
    );
    expect(await dial(Uint8Array.of(3, 1, 1, 65))).toBe(MeshCloseCode.BadFrame);
    expect(await dial(JSON.stringify({ t: 'proof', node: 'x' }))).toBe(MeshCloseCode.BadFrame);
    expect(a.metrics.refusals('mesh-unauthorized')).toBe(1);
    expect(a.metrics.refusals('mesh-bad-frame')).toBe(2);
  });

  it('does not dial an address Redis gives that is not loopback or private', async () => {
    const a = await meshNode(undefined, slowBeat(30_000));
    const b = await meshNode();
    // Someone who can write to Redis points a's heartbeat at a public address.
    await advertise(a, '203.0.113.9:7431');
    const { d } = await pair(a, b);
    d.send(numbered(1));
    await until(() => d.received.length === 1, 'the echo through Redis');
    expect(count(b, 'out', 'direct')).toBe(0);
  });

  it('listens only on loopback or private addresses', async () => {
    for (const host of ['0.0.0.0', '::', '8.8.8.8', '2001:db8::1']) {
      const r = await Relay.start({ bind: '127.0.0.1', port: 0, redisUrl: cluster.url, mesh: { ...mesh(), host } });
      expect(r.ok, host).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/loopback or a private address/);
    }
    for (const ok of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '100.100.1.1', '::1', 'fd7a:115c::1']) {
      expect(isMeshAddress(ok), ok).toBe(true);
    }
    for (const no of ['172.32.0.1', '100.128.0.1', '::ffff:8.8.8.8', 'fe80::1', 'example.com']) {
      expect(isMeshAddress(no), no).toBe(false);
    }
    expect(parseMeshAddress('203.0.113.9:7431')).toBeUndefined();
    expect(parseMeshAddress('[::1]:7431')).toEqual({ host: '::1', port: 7431 });
  });
});
