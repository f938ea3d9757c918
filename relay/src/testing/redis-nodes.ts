import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import type { MeshOptions } from '../cluster/redis-cluster.js';
import type { RelayLimits } from '../limits.js';
import { RelayServer } from '../relay-server.js';
import { freePort, spawnRedis, stopRedis } from './redis-server.js';

/**
 * Relay nodes on one real redis-server, for a test file: Redis starts before its tests (on a free
 * port, nothing saved to disk), and every node, every client tracked and Redis stop after them.
 */
export function redisNodes() {
  let redis: ChildProcess | undefined;
  let url = '';
  const nodes: RelayServer[] = [];
  const sockets: { close(): void }[] = [];
  beforeAll(async () => {
    const port = await freePort();
    redis = await spawnRedis(port);
    url = `redis://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    for (const s of sockets.splice(0)) s.close();
    for (const n of nodes.splice(0)) await n.close();
    await stopRedis(redis);
  });
  return {
    /** The shared Redis's URL (once the file's tests have started). */
    get url(): string {
      return url;
    },
    /** A node on the shared Redis, or on `redisUrl` (with a mesh: `mesh`); closed after the file's tests. */
    async node(limits: Partial<RelayLimits> = {}, redisUrl = url, mesh?: MeshOptions): Promise<RelayServer> {
      const r = await RelayServer.start({ bind: '127.0.0.1', port: 0, redisUrl, limits, ...(mesh ? { mesh } : {}) });
      if (!r.ok) throw new Error(r.error.message);
      nodes.push(r.value);
      return r.value;
    },
    /** A node the test stopped itself (crashed or closed): not closed again after the tests. */
    forget(node: RelayServer): void {
      const at = nodes.indexOf(node);
      if (at >= 0) nodes.splice(at, 1);
    },
    /** Closes `socket` after the file's tests. */
    track<T extends { close(): void }>(socket: T): T {
      sockets.push(socket);
      return socket;
    },
  };
}
