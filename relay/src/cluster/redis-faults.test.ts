import { RelayCloseCode, generateHostIdentity } from '@tether/shared-protocol';
import type { HostIdentity } from '@tether/shared-protocol';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import type { RelayLimits } from '../limits.js';
import type { RelayServer } from '../relay-server.js';
import { FakeDevice, FakeHost, until } from '../testing/clients.js';
import { redisNodes } from '../testing/redis-nodes.js';
import { freePort, spawnRedis, stopRedis } from '../testing/redis-server.js';

/**
 * What Redis can do to the hosts a cluster carries: stall (SIGSTOP), hold a claim written by
 * someone else (one SET), list what it keeps. A claim in Redis may move a host between nodes; it
 * never stops one, and a node never takes its own late claim for a rival's.
 */

const FAST: Partial<RelayLimits> = {
  nodeHeartbeatMs: 300,
  nodeTtlMs: 2_500,
  presenceRefreshMs: 500,
  presenceTtlMs: 3_000,
};

const cluster = redisNodes();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function host(relay: RelayServer, identity: HostIdentity): Promise<FakeHost> {
  return cluster.track(await FakeHost.connect(relay.url, identity));
}

/** A device on `relay` whose bytes come back from the host: true once one round trip worked. */
async function reaches(relay: RelayServer, identity: HostIdentity, h: FakeHost): Promise<boolean> {
  h.echo = true;
  for (let i = 0; i < 40; i++) {
    const d = cluster.track(await FakeDevice.connect(relay.url, identity));
    d.send(Uint8Array.of(7));
    await until(() => d.received.length > 0 || d.closed !== undefined, 'an echo or a close', 3_000).catch(() => {});
    d.close();
    if (d.received.length > 0) return true;
    await sleep(100);
  }
  return false;
}

async function redisAt(url: string) {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

describe('a Redis that stalls while a host links', () => {
  it('never makes the node take its own late claim for a rival: the host stays linked and reachable', async () => {
    const port = await freePort();
    const own = await spawnRedis(port);
    try {
      const url = `redis://127.0.0.1:${port}`;
      const a = await cluster.node(FAST, url);
      const b = await cluster.node(FAST, url);
      const identity = generateHostIdentity();
      // Redis takes the claim's command and answers it only after the node gave up on it (2 s).
      own.kill('SIGSTOP');
      const h = await host(a, identity);
      await sleep(3_000);
      own.kill('SIGCONT');
      // Several refreshes: each finds the claim Redis made late, this node's own.
      await sleep(2_500);
      expect(h.closed).toBeUndefined();
      expect(h.frames.filter((f) => f.type === 'drain')).toEqual([]);
      expect(await reaches(b, identity, h)).toBe(true);
    } finally {
      own.kill('SIGCONT');
      await stopRedis(own);
    }
  }, 30_000);
});

describe('a claim written into Redis by someone else', () => {
  it('moves the host (its node asks it to link again), never stops it, and the host is reachable again', async () => {
    const a = await cluster.node(FAST);
    const b = await cluster.node(FAST);
    const redis = await redisAt(cluster.url);
    try {
      const identity = generateHostIdentity();
      const h = await host(a, identity);
      expect(await reaches(b, identity, h)).toBe(true);
      const [key] = await redis.keys('tether:relay:host:*');
      expect(key).toBeDefined();
      // One SET: the key now names another node, at a generation far ahead.
      await redis.set(key!, `${b.nodeId} 999999`, { PX: 60_000 });
      await until(() => h.closed !== undefined || h.frames.some((f) => f.type === 'drain'), 'the node to act', 5_000);
      // Told to link again, never that a newer link took over (a host stops on that).
      expect(h.closed?.code).not.toBe(RelayCloseCode.Replaced);
      expect(h.frames.some((f) => f.type === 'drain')).toBe(true);
      // The host links again (to either node); it is reachable from both, key tampered or not.
      h.close();
      const again = await host(b, identity);
      expect(await reaches(a, identity, again)).toBe(true);
      await redis.del(key!);
      await sleep(1_200);
      expect(again.closed).toBeUndefined();
      expect(await reaches(a, identity, again)).toBe(true);
    } finally {
      await redis.quit();
    }
  }, 30_000);

  it('lists no host id: the presence keys name a host only by a hash of its id', async () => {
    const a = await cluster.node(FAST);
    const redis = await redisAt(cluster.url);
    try {
      const identity = generateHostIdentity();
      const h = await host(a, identity);
      await until(() => h.ws.readyState === h.ws.OPEN, 'the link');
      await sleep(300);
      const keys = await redis.keys('tether:relay:*');
      expect(keys.some((k) => k.startsWith('tether:relay:host:'))).toBe(true);
      for (const k of keys) expect(k).not.toContain(identity.hostId);
      const values = await Promise.all(keys.filter((k) => k.includes(':host:')).map((k) => redis.get(k)));
      for (const value of values) expect(value).not.toContain(identity.hostId);
    } finally {
      await redis.quit();
    }
  });
});

describe('a Redis that asks for a password (requirepass)', () => {
  it('is joined with redis://:password@…, and refused, without the password printed anywhere, with a wrong one', async () => {
    const port = await freePort();
    const secret = 'correct horse battery staple';
    const own = await spawnRedis(port, ['--requirepass', secret]);
    try {
      const url = `redis://:${encodeURIComponent(secret)}@127.0.0.1:${port}`;
      const a = await cluster.node(FAST, url);
      const b = await cluster.node(FAST, url);
      await until(() => a.cluster?.isUp === true && b.cluster?.isUp === true, 'both nodes to join', 5_000);
      const identity = generateHostIdentity();
      const h = await host(a, identity);
      expect(await reaches(b, identity, h)).toBe(true);

      // A node with the wrong password serves what it holds and says the cluster is down.
      const wrong = await cluster.node(FAST, `redis://:wrong-password@127.0.0.1:${port}`);
      await sleep(500);
      expect(wrong.cluster?.isUp).toBe(false);
      const d = cluster.track(await FakeDevice.connect(wrong.url, identity));
      expect((await d.done).code).toBe(RelayCloseCode.HostOffline);
      const metrics = await (await fetch(`${wrong.url}/metrics`)).text();
      expect(metrics).toContain('tether_relay_cluster_up 0');
      expect(metrics).not.toContain('wrong-password');
      expect(metrics).not.toContain(secret);
    } finally {
      await stopRedis(own);
    }
  }, 30_000);
});
