import type { Clock, TimerHandle } from '@tether/shared-protocol';
import type { RelayLimits } from '../limits.js';
import type { Backplane } from './backplane.js';
import type { RedisTarget } from './redis-target.js';
import type { Client } from './redis-client.js';
import { COMMAND_TIMEOUT_MS, closeClient, newClient } from './redis-client.js';
import {
  ALL,
  CLAIM,
  GENERATION_TTL_MS,
  REFRESH,
  RELEASE,
  genKey,
  hostKey,
  nodeChannel,
  nodeKey,
} from './redis-keys.js';

/**
 * The backplane on Redis (its keys, channels and scripts: redis-keys.ts).
 *
 * A claim is one script: it raises the host's generation and makes this node the holder at that
 * generation, so two nodes taking a link for one host at the same moment cannot both believe they
 * hold it: Redis runs one script after the other, the later has the higher generation, and the
 * node with the lower one yields when it hears the other's claim (or, if it never does, when its
 * refresh finds the key no longer its own). Refresh and release compare node and generation, so
 * an older claim of this very node can neither keep nor delete a newer one. A host's two keys
 * share a hash tag (`{<tag>}`), so the scripts also run on Redis Cluster.
 *
 * `<tag>` is a hash of the host id (`hostTag`), not the id: a reader of Redis (`KEYS`) learns how
 * many hosts are linked and to which nodes, and whether a host id they already hold is among them,
 * never a list of host ids. What pub/sub carries (claims and streams name host ids) is another
 * matter: docs/relay.md, "What Redis sees".
 *
 * Two connections: one subscribed, one for commands and publishing (a subscribed Redis connection
 * takes no other commands). Commands fail at once while Redis is unreachable (no offline queue),
 * so nothing piles up in the client; a dropped subscription is reported through `onLost`.
 */

/** This node's claim of one host: its generation, or why there is none yet. A pending claim is an
 * object of its own, so that a claim's late answer never stands for a newer claim of the same host. */
type Claim = number | 'failed' | { pending: true };

/** Milliseconds between checks of the publishes in flight: a publish fails between 1.75 s and 2 s
 * unanswered (COMMAND_TIMEOUT_MS), never later. */
const PUBLISH_SWEEP_MS = 250;

interface PendingPublish {
  /** When it was made (the clock's milliseconds). */
  at: number;
  resolve: (sent: boolean) => void;
}

export class RedisBackplane implements Backplane {
  onMessage: ((bytes: Uint8Array) => void) | null = null;
  onLost: (() => void) | null = null;
  onClaimLost: ((hostId: string) => void) | null = null;
  private readonly claims = new Map<string, Claim>();
  private heartbeatTimer: TimerHandle | undefined;
  private refreshTimer: TimerHandle | undefined;
  /** Whether the subscription stands; false until it is first made. */
  private subscribed = false;
  private markJoined: () => void = () => {};
  /** Settles when the subscription is first made (it may never be). */
  readonly joined = new Promise<void>((resolve) => (this.markJoined = resolve));
  private stopped = false;
  /** Publishes Redis has not answered yet, oldest first (at most MAX_REDIS_COMMANDS: the client
   * refuses beyond that, and a refusal settles its entry at once). */
  private readonly publishes = new Set<PendingPublish>();
  private publishSweep: TimerHandle | undefined;

  private constructor(
    readonly nodeId: string,
    private readonly pub: Client,
    private readonly sub: Client,
    private readonly clock: Clock,
    private readonly limits: RelayLimits,
    private readonly advertise: string | undefined,
  ) {}

  /**
   * Starts connecting and returns at once: until Redis answers, commands fail (the node refuses
   * cross-node traffic, as when Redis drops later) and `isUp` is false. The clients keep trying on
   * their own; the subscription is made when the subscriber is first ready, and the client
   * renews it on every reconnect.
   */
  static connect(options: {
    target: RedisTarget;
    nodeId: string;
    clock: Clock;
    limits: RelayLimits;
    /** Where other nodes reach this one's mesh link (`host:port`), kept in its heartbeat key. */
    meshAddress?: string;
  }): RedisBackplane {
    const pub = newClient(options.target);
    const sub = newClient(options.target);
    // Errors surface as failed commands and lost subscriptions; an unhandled 'error' would end the process.
    pub.on('error', () => {});
    sub.on('error', () => {});
    const plane = new RedisBackplane(options.nodeId, pub, sub, options.clock, options.limits, options.meshAddress);
    const deliver = (message: Buffer) =>
      plane.onMessage?.(new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
    sub.on('reconnecting', () => plane.subscriptionDropped());
    sub.on('end', () => plane.subscriptionDropped());
    // Sends SUBSCRIBE the first time only: the client already holds the channels on a reconnect.
    sub.on('ready', () => {
      sub.subscribe([nodeChannel(options.nodeId), ALL], deliver, true).then(
        () => {
          plane.subscribed = sub.isReady;
          if (plane.isUp) plane.markJoined();
        },
        () => {},
      );
    });
    // Presence and heartbeat at once on every (re)connection, not at the next refresh: Redis may
    // have come back empty, or this node may have linked hosts while it was away.
    pub.on('ready', () => {
      if (plane.isUp) plane.markJoined();
      void plane.beat();
      void plane.refresh();
    });
    // Settles once ready, or rejects when the client is closed before it ever was.
    pub.connect().catch(() => {});
    sub.connect().catch(() => {});
    void plane.heartbeat();
    plane.scheduleRefresh();
    return plane;
  }

  get isUp(): boolean {
    return this.pub.isReady && this.sub.isReady && this.subscribed;
  }

  async send(node: string, bytes: Uint8Array): Promise<boolean> {
    return this.publish(nodeChannel(node), bytes);
  }

  async broadcast(bytes: Uint8Array): Promise<boolean> {
    return this.publish(ALL, bytes);
  }

  async claim(hostId: string): Promise<number | undefined> {
    const pending: Claim = { pending: true };
    this.claims.set(hostId, pending);
    const gen = await this.takeClaim(hostId, 'take');
    // Unless released meanwhile, or claimed again since (that claim's answer comes after this one).
    if (this.claims.get(hostId) === pending) this.claims.set(hostId, gen ?? 'failed');
    return gen;
  }

  generation(hostId: string): number | undefined {
    const claim = this.claims.get(hostId);
    return typeof claim === 'number' ? claim : undefined;
  }

  async release(hostId: string): Promise<void> {
    const claim = this.claims.get(hostId);
    this.claims.delete(hostId);
    // A pending claim runs before this on the same connection: whatever generation it took is ours.
    const gen = typeof claim === 'number' ? String(claim) : '';
    await this.command(() => this.pub.eval(RELEASE, { keys: [hostKey(hostId)], arguments: [this.nodeId, gen] }));
  }

  async locate(hostId: string): Promise<string | undefined> {
    const value = await this.command(() => this.pub.get(hostKey(hostId)));
    if (typeof value !== 'string') return undefined;
    const node = value.split(' ')[0]!;
    if (node === this.nodeId) return node;
    const alive = await this.command(() => this.pub.exists(nodeKey(node)));
    return alive === 1 ? node : undefined;
  }

  async alive(nodes: readonly string[]): Promise<ReadonlySet<string>> {
    const out = new Set<string>();
    const results = await Promise.all(nodes.map((n) => this.command(() => this.pub.exists(nodeKey(n)))));
    results.forEach((r, i) => {
      // When Redis cannot answer, nobody is declared dead on that account.
      if (r !== 0) out.add(nodes[i]!);
    });
    return out;
  }

  /** The mesh address `node` advertises (as Redis holds it: unchecked), if it is alive and has one. */
  async meshAddress(node: string): Promise<string | undefined> {
    const value = await this.command(() => this.pub.get(nodeKey(node)));
    return typeof value === 'string' && value !== '1' ? value : undefined;
  }

  /** Leaves cleanly: claims and heartbeat deleted, connections closed. */
  async leave(): Promise<void> {
    this.stop();
    for (const hostId of [...this.claims.keys()]) await this.release(hostId);
    await this.command(() => this.pub.del(nodeKey(this.nodeId)));
    await Promise.all([closeClient(this.sub), closeClient(this.pub)]);
  }

  /** Drops the connections without a word, as a dying process would: keys expire on their own. */
  crash(): void {
    this.stop();
    this.sub.destroy();
    this.pub.destroy();
  }

  private stop(): void {
    this.stopped = true;
    if (this.heartbeatTimer) this.clock.clearTimeout(this.heartbeatTimer);
    if (this.refreshTimer) this.clock.clearTimeout(this.refreshTimer);
    if (this.publishSweep) this.clock.clearTimeout(this.publishSweep);
    this.publishSweep = undefined;
    for (const entry of this.publishes) entry.resolve(false);
    this.publishes.clear();
  }

  private subscriptionDropped(): void {
    if (!this.subscribed || this.stopped) return;
    this.subscribed = false;
    this.onLost?.();
  }

  /**
   * Publishes without a timer of its own: every frame crossing nodes is a publish, so their deadline
   * is kept by one sweep (`sweepPublishes`) rather than a timer set and cleared each. A publish not
   * answered within COMMAND_TIMEOUT_MS counts as failed, as any command does; the sweep runs every
   * PUBLISH_SWEEP_MS and fails one past COMMAND_TIMEOUT_MS − PUBLISH_SWEEP_MS, so none waits longer
   * than a command would. Publishes made in one tick leave in one write (the client pipelines them).
   */
  private publish(channel: string, bytes: Uint8Array): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const entry: PendingPublish = { at: this.clock.now(), resolve };
      this.publishes.add(entry);
      this.armPublishSweep();
      const settle = (sent: boolean) => {
        if (this.publishes.delete(entry)) resolve(sent);
      };
      this.pub.publish(channel, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).then(
        () => settle(true),
        () => settle(false),
      );
    });
  }

  private armPublishSweep(): void {
    if (this.publishSweep !== undefined) return;
    this.publishSweep = this.clock.setTimeout(() => {
      this.publishSweep = undefined;
      this.sweepPublishes();
    }, PUBLISH_SWEEP_MS);
  }

  /** Fails the publishes Redis has held too long; the set is in the order they were made. */
  private sweepPublishes(): void {
    const overdue = this.clock.now() - (COMMAND_TIMEOUT_MS - PUBLISH_SWEEP_MS);
    for (const entry of this.publishes) {
      if (entry.at > overdue) break;
      this.publishes.delete(entry);
      entry.resolve(false);
    }
    if (this.publishes.size > 0) this.armPublishSweep();
  }

  private async beat(): Promise<void> {
    await this.command(() =>
      this.pub.set(nodeKey(this.nodeId), this.advertise ?? '1', {
        expiration: { type: 'PX', value: this.limits.nodeTtlMs },
      }),
    );
  }

  private async heartbeat(): Promise<void> {
    await this.beat();
    if (!this.stopped)
      this.heartbeatTimer = this.clock.setTimeout(() => void this.heartbeat(), this.limits.nodeHeartbeatMs);
  }

  private scheduleRefresh(): void {
    this.refreshTimer = this.clock.setTimeout(() => {
      void this.refresh().finally(() => {
        if (!this.stopped) this.scheduleRefresh();
      });
    }, this.limits.presenceRefreshMs);
  }

  private async refresh(): Promise<void> {
    for (const [hostId, claim] of [...this.claims]) {
      if (typeof claim === 'object') continue;
      let kept: boolean;
      if (claim === 'failed') {
        const gen = await this.takeClaim(hostId, 'if-free');
        if (gen !== undefined && gen > 0 && this.claims.get(hostId) === 'failed') this.claims.set(hostId, gen);
        kept = gen !== 0;
      } else {
        const answer = await this.command(() =>
          this.pub.eval(REFRESH, {
            keys: [hostKey(hostId), genKey(hostId)],
            arguments: [this.nodeId, String(claim), String(this.limits.presenceTtlMs), String(GENERATION_TTL_MS)],
          }),
        );
        kept = answer !== 0;
      }
      if (!kept && this.claims.get(hostId) === claim && this.claims.delete(hostId)) this.onClaimLost?.(hostId);
    }
  }

  /** Runs CLAIM: the generation taken, 0 if `if-free` found the host held, undefined if Redis did not answer. */
  private async takeClaim(hostId: string, mode: 'take' | 'if-free'): Promise<number | undefined> {
    const gen = await this.command(() =>
      this.pub.eval(CLAIM, {
        keys: [hostKey(hostId), genKey(hostId)],
        arguments: [this.nodeId, String(this.limits.presenceTtlMs), mode, String(GENERATION_TTL_MS)],
      }),
    );
    return typeof gen === 'number' ? gen : undefined;
  }

  /** Runs a command; undefined when Redis cannot answer, or not within COMMAND_TIMEOUT_MS (the
   * caller treats it as unknown). A late answer is dropped. */
  private async command<T>(run: () => Promise<T>): Promise<T | undefined> {
    let timer: TimerHandle | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = this.clock.setTimeout(() => resolve(undefined), COMMAND_TIMEOUT_MS);
    });
    const answer = run().catch(() => undefined);
    try {
      return await Promise.race([answer, late]);
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
    }
  }
}
