import { RelayCloseCode, generateHostIdentity, relayPairUrl, utf8Encode } from '@tether/shared-protocol';
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { RelayLimits } from '../limits.js';
import type { RelayServer } from '../relay-server.js';
import { FakeDevice, FakeHost, until, wellFormedStrangers } from '../testing/clients.js';
import { redisNodes } from '../testing/redis-nodes.js';
import { freePort, spawnRedis, stopRedis } from '../testing/redis-server.js';

/**
 * Two relay nodes and a real redis-server on 127.0.0.1 (started here, on a free port, with nothing
 * saved to disk). Where a test waits for a dead node to be noticed, heartbeats and TTLs are
 * shortened to a couple of seconds: long enough that a busy machine's pauses do not kill a live node.
 */

const FAST: Partial<RelayLimits> = {
  nodeHeartbeatMs: 300,
  nodeTtlMs: 2_500,
  presenceRefreshMs: 500,
  presenceTtlMs: 3_000,
};

const cluster = redisNodes();
const node = (limits: Partial<RelayLimits> = {}, url?: string) => cluster.node(limits, url);

async function host(relay: RelayServer, identity = generateHostIdentity()) {
  return cluster.track(await FakeHost.connect(relay.url, identity));
}

async function device(relay: RelayServer, identity: ReturnType<typeof generateHostIdentity>) {
  return cluster.track(await FakeDevice.connect(relay.url, identity));
}

/** Sends `bytes` from the device and back from the host; resolves when both have arrived. */
async function roundTrip(h: FakeHost, d: FakeDevice, bytes: Uint8Array): Promise<void> {
  await until(() => h.conns.size > 0 && h.conns.get(h.lastConn)?.closed === undefined, 'an open connection');
  const connId = h.lastConn;
  const before = h.received(connId).length;
  d.send(bytes);
  await until(() => h.received(connId).length === before + 1, 'device bytes at the host');
  // Compared as buffers: a generic deep-equal walks a large array element by element.
  expect(Buffer.compare(Buffer.from(h.received(connId).at(-1)!), Buffer.from(bytes))).toBe(0);
  const seen = d.received.length;
  h.send({ type: 'data', connId, payload: bytes.slice().reverse() });
  await until(() => d.received.length === seen + 1, 'host bytes at the device');
  expect(Buffer.compare(Buffer.from(d.received.at(-1)!), Buffer.from(bytes.slice().reverse()))).toBe(0);
}

describe('relay cluster over Redis', () => {
  it('joins a host on one node and a device on another; survives the host node dying', async () => {
    const a = await node();
    const b = await node();
    const identity = generateHostIdentity();
    const h1 = await host(a, identity);
    const d1 = await device(b, identity);
    await roundTrip(h1, d1, utf8Encode('hello across nodes'));
    await roundTrip(h1, d1, new Uint8Array(300_000).fill(7));
    expect(h1.conns.get(h1.lastConn)!.source).toBe('127.0.0.1');

    // Pair requests reach the host's node too.
    h1.answer = () => [200, utf8Encode('{"v":1}')];
    const pair = await fetch(relayPairUrl(b.url, identity.hostId)!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: wellFormedStrangers().pair,
    });
    expect([pair.status, await pair.text()]).toEqual([200, '{"v":1}']);
    expect(b.metrics.get('tether_relay_cluster_messages_total', { direction: 'out', path: 'redis' })).toBeGreaterThan(
      0,
    );

    // Node a dies without a word. The host relinks to b; the device's stream to a is closed, and
    // the device reconnects (to b, the node left) and flows again.
    await a.crash();
    cluster.forget(a);
    await until(() => h1.closed !== undefined, 'the host to notice its node died');
    const h2 = await host(b, identity);
    expect(await d1.done).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    const d2 = await device(b, identity);
    await roundTrip(h2, d2, utf8Encode('back again'));
  });

  it('closes a stream whose host node dies when the host does not come back', async () => {
    const a = await node(FAST);
    const b = await node(FAST);
    const identity = generateHostIdentity();
    const h = await host(a, identity);
    const d = await device(b, identity);
    await roundTrip(h, d, Uint8Array.of(1));
    await a.crash();
    cluster.forget(a);
    // Noticed through a's heartbeat expiring (2.5 s here, 3 s by default).
    expect(await d.done).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    expect(b.metrics.drops('node-gone')).toBe(1);
    // Its presence expires too: a new device is told the host is offline.
    const late = await device(b, identity);
    expect((await late.done).code).toBe(RelayCloseCode.HostOffline);
  });

  it('notices a node that dies within 5 s with the default heartbeat, and closes its streams then', async () => {
    const a = await node();
    const b = await node();
    const identity = generateHostIdentity();
    const h = await host(a, identity);
    const d = await device(b, identity);
    await roundTrip(h, d, Uint8Array.of(1));
    const diedAt = Date.now();
    await a.crash();
    cluster.forget(a);
    expect(await d.done).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    const noticedMs = Date.now() - diedAt;
    expect(noticedMs).toBeLessThan(5_000);
    expect(b.metrics.drops('node-gone')).toBe(1);
    // Its hosts' presence no longer counts at once, though the key lives on.
    const late = await device(b, identity);
    expect((await late.done).code).toBe(RelayCloseCode.HostOffline);
  }, 10_000);

  it('releases presence when a node shuts down cleanly, and the newest link wins across nodes', async () => {
    const a = await node();
    const b = await node();
    const identity = generateHostIdentity();
    const first = await host(a, identity);
    // The older link known across the cluster before the newer comes (as when a host reconnects):
    // a device on b reaches it through a, so a's claim has been taken and heard by b.
    const probe = await device(b, identity);
    await until(() => first.conns.size === 1, 'the older link to be known on b');
    probe.close();
    const second = await host(b, identity);
    await until(() => first.closed !== undefined, 'the older link to be replaced');
    expect(first.closed).toEqual({ code: RelayCloseCode.Replaced, reason: 'replaced' });
    second.echo = true;
    const d = await device(a, identity);
    await until(() => second.conns.size === 1, 'the open on the newer link');
    d.send(Uint8Array.of(3));
    await until(() => d.received.length === 1, 'the echo');

    await b.close();
    cluster.forget(b);
    expect(await d.done).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    const late = await device(a, identity);
    expect((await late.done).code).toBe(RelayCloseCode.HostOffline);
  });

  it('goes on serving what it holds while Redis restarts, refuses cross-node traffic meanwhile, and recovers without a restart', async () => {
    const port = await freePort();
    let own: ChildProcess | undefined = await spawnRedis(port);
    try {
      const url = `redis://127.0.0.1:${port}`;
      const a = await node(FAST, url);
      const b = await node(FAST, url);
      const identity = generateHostIdentity();
      const h = await host(a, identity);
      const across = await device(b, identity);
      await roundTrip(h, across, Uint8Array.of(1));

      // Redis dies. The stream between the nodes is closed: messages may have been lost.
      await stopRedis(own);
      own = undefined;
      expect((await across.done).code).toBe(RelayCloseCode.HostGone);
      await until(() => b.cluster?.isUp === false, 'b to see Redis gone');
      // A device on the host's own node is served as ever; one on the other is told host-offline.
      const direct = await device(a, identity);
      await roundTrip(h, direct, Uint8Array.of(2));
      const refused = await device(b, identity);
      expect((await refused.done).code).toBe(RelayCloseCode.HostOffline);

      // Redis is back (empty): the clients reconnect on their own, presence is re-established at
      // the next refresh, and cross-node traffic flows again.
      own = await spawnRedis(port);
      await until(() => a.cluster?.isUp === true && b.cluster?.isUp === true, 'both nodes to reconnect');
      let again: FakeDevice | undefined;
      for (let i = 0; i < 40 && !again; i++) {
        const before = h.conns.size;
        const d = await device(b, identity);
        // Opened at the host, or refused: on a loaded machine the answer may take a while.
        await until(() => d.closed !== undefined || h.conns.size > before, 'an open or a refusal');
        if (d.closed === undefined) again = d;
        else await new Promise((r) => setTimeout(r, 100));
      }
      if (!again) throw new Error('no cross-node device after Redis came back');
      await roundTrip(h, again, Uint8Array.of(3));
    } finally {
      await stopRedis(own);
    }
  }, 20_000);

  it('starts at once against a Redis that takes connections and never answers, and serves its own', async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const startedAt = Date.now();
      const a = await node(FAST, `redis://127.0.0.1:${(silent.address() as { port: number }).port}`);
      expect(Date.now() - startedAt).toBeLessThan(2_000);
      await until(() => held.length > 0, 'the node to reach the silent Redis');
      expect(a.cluster?.isUp).toBe(false);
      expect(await (await fetch(`${a.url}/metrics`)).text()).toContain('tether_relay_cluster_up 0');
      const identity = generateHostIdentity();
      const h = await host(a, identity);
      await roundTrip(h, await device(a, identity), Uint8Array.of(1));
      // A host that is not here is looked for through Redis, which cannot answer: host-offline.
      const refused = await device(a, generateHostIdentity());
      expect((await refused.done).code).toBe(RelayCloseCode.HostOffline);
      await a.close();
      cluster.forget(a);
    } finally {
      for (const s of held) s.destroy();
      silent.close();
    }
  }, 10_000);

  it('starts while Redis is down, refuses cross-node traffic, and joins the cluster when Redis comes up', async () => {
    const port = await freePort();
    let own: ChildProcess | undefined;
    try {
      const url = `redis://127.0.0.1:${port}`;
      const startedAt = Date.now();
      const [a, b] = await Promise.all([node(FAST, url), node(FAST, url)]);
      expect(Date.now() - startedAt).toBeLessThan(2_000);
      expect(a.cluster?.isUp).toBe(false);
      const identity = generateHostIdentity();
      const h = await host(a, identity);
      await roundTrip(h, await device(a, identity), Uint8Array.of(1));
      // The host is on a, the device on b: refused as when Redis drops at run time.
      const refused = await device(b, identity);
      expect((await refused.done).code).toBe(RelayCloseCode.HostOffline);

      // Redis starts: the clients connect on their own, the host's presence is written at the next
      // refresh, and a device on the other node reaches it, with neither node restarted.
      own = await spawnRedis(port);
      await until(() => a.cluster?.isUp === true && b.cluster?.isUp === true, 'both nodes to connect');
      expect(await (await fetch(`${b.url}/metrics`)).text()).toContain('tether_relay_cluster_up 1');
      let again: FakeDevice | undefined;
      for (let i = 0; i < 40 && !again; i++) {
        const before = h.conns.size;
        const d = await device(b, identity);
        await new Promise((r) => setTimeout(r, 100));
        if (d.closed === undefined && h.conns.size > before) again = d;
      }
      if (!again) throw new Error('no cross-node device after Redis came up');
      await roundTrip(h, again, Uint8Array.of(2));
    } finally {
      await stopRedis(own);
    }
  }, 20_000);

  it('refuses cross-node traffic within seconds when Redis stops answering, serves its own, and recovers', async () => {
    const port = await freePort();
    const own = await spawnRedis(port);
    try {
      const url = `redis://127.0.0.1:${port}`;
      const a = await node(FAST, url);
      const b = await node(FAST, url);
      const identity = generateHostIdentity();
      const h = await host(a, identity);
      /** A device whose connection the host has opened: the host's newest, for `roundTrip`. */
      const opened = async (relay: RelayServer) => {
        const before = h.conns.size;
        const d = await device(relay, identity);
        await until(() => h.conns.size > before, 'the open at the host');
        return d;
      };
      const across = await opened(b);
      await roundTrip(h, across, Uint8Array.of(1));

      // Redis takes connections and answers nothing.
      own.kill('SIGSTOP');
      const askedAt = Date.now();
      const refused = await device(b, identity);
      expect((await refused.done).code).toBe(RelayCloseCode.HostOffline);
      expect(Date.now() - askedAt).toBeLessThan(5_000);
      // A frame of a standing stream is published and never answered: within the command timeout
      // (2 s) the publish counts as failed and the stream is closed, not left waiting.
      const sentAt = Date.now();
      across.send(Uint8Array.of(9));
      await across.done;
      expect(Date.now() - sentAt).toBeLessThan(5_000);
      expect(b.metrics.drops('cluster-publish-failed')).toBeGreaterThan(0);
      await roundTrip(h, await opened(a), Uint8Array.of(2));

      own.kill('SIGCONT');
      let again: FakeDevice | undefined;
      for (let i = 0; i < 40 && !again; i++) {
        const before = h.conns.size;
        const d = await device(b, identity);
        await new Promise((r) => setTimeout(r, 100));
        if (d.closed === undefined && h.conns.size > before) again = d;
      }
      if (!again) throw new Error('no cross-node device after Redis answered again');
      await roundTrip(h, again, Uint8Array.of(3));
    } finally {
      own.kill('SIGCONT');
      await stopRedis(own);
    }
  }, 20_000);
});
