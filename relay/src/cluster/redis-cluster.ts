import type { Clock } from '@tether/shared-protocol';
import type { RelayLimits } from '../limits.js';
import type { RelayMetrics } from '../metrics.js';
import type { HostRoutes } from '../routes.js';
import type { ClusterLink, Switchboard } from '../switchboard.js';
import { ClusterRouter } from './cluster-router.js';
import { RedisBackplane } from './redis-backplane.js';
import type { RedisTarget } from './redis-target.js';

/** A node's membership of a Redis-backed cluster: the backplane and the router over it. */
export class RedisCluster implements ClusterLink {
  private constructor(
    private readonly backplane: RedisBackplane,
    private readonly router: ClusterRouter,
  ) {}

  /** Joins at once, whether or not Redis answers yet (see `RedisBackplane.connect`). */
  static join(options: {
    target: RedisTarget;
    nodeId: string;
    clock: Clock;
    limits: RelayLimits;
    metrics: RelayMetrics;
    switchboard: Switchboard;
  }): RedisCluster {
    const backplane = RedisBackplane.connect(options);
    const router = new ClusterRouter({
      backplane,
      clock: options.clock,
      limits: options.limits,
      metrics: options.metrics,
      local: options.switchboard,
    });
    return new RedisCluster(backplane, router);
  }

  /** Resolves when this node first joins through Redis, or after `ms`, whichever is first. */
  async joinedWithin(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.backplane.joined, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  get isUp(): boolean {
    return this.backplane.isUp;
  }

  get inflightBytes(): number {
    return this.router.inflightBytes;
  }

  readonly attach: HostRoutes['attach'] = (...args) => this.router.attach(...args);

  readonly request: HostRoutes['request'] = (...args) => this.router.request(...args);

  hostLinked(hostId: string): void {
    this.router.hostLinked(hostId);
  }

  hostUnlinked(hostId: string): void {
    this.router.hostUnlinked(hostId);
  }

  /** Leaves cleanly: streams closed, claims released, heartbeat deleted. */
  async leave(): Promise<void> {
    this.router.stop();
    await this.backplane.leave();
  }

  /** Vanishes, as a crashed node would: the connections to Redis go first, so nothing is said. */
  crash(): void {
    this.backplane.crash();
    this.router.stop();
  }
}
