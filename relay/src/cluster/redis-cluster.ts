import type { Clock } from '@tether/shared-protocol';
import type { RelayLimits } from '../limits.js';
import type { RelayMetrics } from '../metrics.js';
import type { HostRoutes } from '../routes.js';
import type { ClusterLink, Switchboard } from '../switchboard.js';
import { ClusterRouter } from './cluster-router.js';
import { MeshBackplane } from './mesh-backplane.js';
import { MeshListener } from './mesh-link.js';
import { RedisBackplane } from './redis-backplane.js';
import type { RedisTarget } from './redis-target.js';

/** The mesh: the key every node holds, and the loopback or private address this node listens on. */
export interface MeshOptions {
  key: Uint8Array;
  host: string;
  /** 0 picks a free port. */
  port: number;
}

/** A node's membership of a Redis-backed cluster: the backplane (with its mesh, if any) and the router over it. */
export class RedisCluster implements ClusterLink {
  private constructor(
    private readonly backplane: MeshBackplane,
    private readonly router: ClusterRouter,
    /** Where this node takes its peers' mesh links, if it has a mesh. */
    readonly listener: MeshListener | undefined,
  ) {}

  /** Joins at once, whether or not Redis answers yet (see `RedisBackplane.connect`); with `mesh`,
   * once its listener listens (a message if it cannot). */
  static async join(options: {
    target: RedisTarget;
    nodeId: string;
    clock: Clock;
    limits: RelayLimits;
    metrics: RelayMetrics;
    switchboard: Switchboard;
    mesh?: MeshOptions;
  }): Promise<RedisCluster | string> {
    // The listener is up before the backplane that takes its messages (it advertises the listener's address).
    const late: { plane?: MeshBackplane } = {};
    let listener: MeshListener | undefined;
    if (options.mesh) {
      const listened = await MeshListener.listen({
        ...options.mesh,
        nodeId: options.nodeId,
        metrics: options.metrics,
        onMessage: (bytes) => late.plane?.receive(bytes),
        onPeerGone: (node) => late.plane?.onPeerLost?.(node),
      });
      if (typeof listened === 'string') return listened;
      listener = listened;
    }
    const redis = RedisBackplane.connect({
      ...options,
      ...(listener ? { meshAddress: listener.address } : {}),
    });
    const plane = new MeshBackplane(redis, { ...options, key: options.mesh?.key });
    late.plane = plane;
    const router = new ClusterRouter({
      backplane: plane,
      clock: options.clock,
      limits: options.limits,
      metrics: options.metrics,
      local: options.switchboard,
    });
    return new RedisCluster(plane, router, listener);
  }

  /** Resolves when this node first joins through Redis, or after `ms`, whichever is first. */
  async joinedWithin(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.backplane.redis.joined, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  get isUp(): boolean {
    return this.backplane.redis.isUp;
  }

  get inflightBytes(): number {
    return this.router.inflightBytes;
  }

  /** Where peers reach this node's mesh link, if it has one. */
  get meshAddress(): string | undefined {
    return this.listener?.address;
  }

  /** Mesh links this node dialed and holds now. */
  get meshLinks(): number {
    return this.backplane.links;
  }

  readonly attach: HostRoutes['attach'] = (...args) => this.router.attach(...args);

  readonly request: HostRoutes['request'] = (...args) => this.router.request(...args);

  hostLinked(hostId: string): void {
    this.router.hostLinked(hostId);
  }

  hostUnlinked(hostId: string): void {
    this.router.hostUnlinked(hostId);
  }

  /** Leaves cleanly: streams closed, claims released, heartbeat deleted, links closed. */
  async leave(): Promise<void> {
    this.router.stop();
    this.backplane.stop(true);
    await this.backplane.redis.leave();
    await this.listener?.close();
  }

  /** Vanishes, as a crashed node would: the connections to Redis and the links go first, so nothing is said. */
  crash(): void {
    this.backplane.redis.crash();
    this.backplane.stop();
    void this.listener?.close();
    this.router.stop();
  }
}
