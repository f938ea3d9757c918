import { generateHostIdentity, utf8Encode } from '@tether/shared-protocol';
import type { ChildProcess } from 'node:child_process';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayServer } from '../relay-server.js';
import { FakeDevice, FakeHost, until } from '../testing/clients.js';
import { freePort, spawnRedis, spawnSentinel, stopRedis } from '../testing/redis-server.js';

/**
 * Two relay nodes that find their Redis through a real Sentinel (`redis-server --sentinel`, started
 * here on 127.0.0.1 beside the master it watches): `--redis redis+sentinel://host:port/<name>`.
 */

let master: ChildProcess | undefined;
let replica: ChildProcess | undefined;
let sentinel: ChildProcess | undefined;
let sentinelPort = 0;
let replicaPort = 0;
const nodes: RelayServer[] = [];
const sockets: { close(): void }[] = [];

beforeAll(async () => {
  const masterPort = await freePort();
  master = await spawnRedis(masterPort);
  replicaPort = await freePort();
  replica = await spawnRedis(replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]);
  sentinelPort = await freePort();
  sentinel = await spawnSentinel(sentinelPort, masterPort, 'tether');
});

afterAll(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const n of nodes.splice(0)) await n.close();
  await stopRedis(sentinel);
  await stopRedis(master);
  await stopRedis(replica);
});

async function node(redisUrl: string): Promise<RelayServer> {
  const r = await RelayServer.start({ bind: '127.0.0.1', port: 0, redisUrl });
  if (!r.ok) throw new Error(r.error.message);
  nodes.push(r.value);
  return r.value;
}

describe('relay cluster through Redis Sentinel', () => {
  it('starts a replica that writes the copy it loads from its master outside the repository', async () => {
    const client = createClient({ url: `redis://127.0.0.1:${replicaPort}` });
    await client.connect();
    try {
      for (let i = 0; !(await client.info('replication')).includes('master_link_status:up'); i++) {
        if (i === 200) throw new Error('timed out waiting for the replica to sync');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // A replica writes the copy it loads (dump.rdb) to its directory whatever `--save` says; in the
      // working directory that put a dump.rdb in the repository after a run.
      const dir = (await client.configGet('dir')).dir!;
      expect(relative(fileURLToPath(new URL('../../../', import.meta.url)), dir).startsWith('..')).toBe(true);
    } finally {
      await client.quit();
    }
  });

  it('joins a host on one node and its device on the other through the master the Sentinel names', async () => {
    const url = `redis+sentinel://127.0.0.1:${sentinelPort}/tether`;
    const a = await node(url);
    const b = await node(url);
    await until(() => a.cluster?.isUp === true && b.cluster?.isUp === true, 'both nodes in the cluster');
    const identity = generateHostIdentity();
    const h = await FakeHost.connect(a.url, identity);
    sockets.push(h);
    h.echo = true;
    const d = await FakeDevice.connect(b.url, identity);
    sockets.push(d);
    d.send(utf8Encode('through the sentinel’s master'));
    await until(() => d.received.length === 1 || d.closed !== undefined, 'the echo');
    expect(d.closed).toBeUndefined();
    expect(Buffer.from(d.received[0]!).toString()).toBe('through the sentinel’s master');
  });

  it('follows the Sentinel to the replica it promotes when the master dies, without a restart', async () => {
    const url = `redis+sentinel://127.0.0.1:${sentinelPort}/tether`;
    const a = await node(url);
    const b = await node(url);
    await until(() => a.cluster?.isUp === true && b.cluster?.isUp === true, 'both nodes in the cluster');
    const identity = generateHostIdentity();
    const h = await FakeHost.connect(a.url, identity);
    sockets.push(h);
    h.echo = true;
    const before = await FakeDevice.connect(b.url, identity);
    sockets.push(before);
    before.send(Uint8Array.of(1));
    await until(() => before.received.length === 1, 'the echo before');

    await stopRedis(master);
    // The stream between the nodes may have lost messages: it is closed, and the device comes again.
    await until(() => before.closed !== undefined, 'the stream across the old master closed', 20_000);
    // Once the Sentinel has promoted the replica, both nodes are back in the cluster on it.
    await until(
      () => a.cluster?.isUp === true && b.cluster?.isUp === true,
      'both nodes on the promoted replica',
      30_000,
    );
    let echoed = false;
    for (let i = 0; i < 60 && !echoed; i++) {
      const d = await FakeDevice.connect(b.url, identity);
      sockets.push(d);
      d.send(Uint8Array.of(2));
      await until(() => d.received.length === 1 || d.closed !== undefined, 'the echo or a close', 5_000).catch(
        () => {},
      );
      echoed = d.received.length === 1;
      d.close();
      if (!echoed) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(echoed).toBe(true);
  }, 90_000);

  it('refuses a malformed Sentinel setting before it listens', async () => {
    const r = await RelayServer.start({ bind: '127.0.0.1', port: 0, redisUrl: 'redis+sentinel://127.0.0.1:1' });
    expect(r.ok).toBe(false);
  });
});
