import type { Clock, Result, TimerHandle } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { createClient } from 'redis';
import type { RelayLimits } from '../limits.js';
import type { Backplane } from './backplane.js';

/**
 * The backplane on Redis:
 *
 *   key     tether:relay:host:<hostId>   = nodeId, PX presence TTL, refreshed while the link lives
 *   key     tether:relay:node:<nodeId>   = 1, PX node TTL, this node's heartbeat
 *   channel tether:relay:to:<nodeId>      messages for one node
 *   channel tether:relay:all              claims, for every node
 *
 * Two connections: one subscribed, one for commands and publishing (a subscribed Redis connection
 * takes no other commands). Commands fail at once while Redis is unreachable (no offline queue),
 * so nothing piles up in the client; a dropped subscription is reported through `onLost`.
 */

const PREFIX = 'tether:relay:';
const hostKey = (hostId: string) => `${PREFIX}host:${hostId}`;
const nodeKey = (nodeId: string) => `${PREFIX}node:${nodeId}`;
const nodeChannel = (nodeId: string) => `${PREFIX}to:${nodeId}`;
const ALL = `${PREFIX}all`;

/** Refreshes a claim only while it is still ours; re-creates it if it expired; 0 if another node took it. */
const REFRESH = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

/** Gives a claim that is still ours to the node that took the link, with a full TTL. */
const HAND_OVER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 0`;

/** Deletes a claim only if it is still ours. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Commands the Redis client may hold unanswered: beyond it a command fails rather than queueing. */
const MAX_REDIS_COMMANDS = 100_000;
/** Milliseconds a command may wait for Redis's answer before it counts as failed: a Redis that
 * takes connections and never answers (stopped, swapping, a half-open link) must not hold a
 * device's connect, a publish or a heartbeat for ever. Under the 3 s node TTL, so a node whose
 * Redis stalls is not the last to know. */
const COMMAND_TIMEOUT_MS = 2_000;
/** Milliseconds to reach Redis when connecting: 5 s. */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * Reconnect delays grow by 200 ms a try, up to 2 s: well inside the presence TTL. Before the first
 * connection succeeds there is no retrying: a relay started against an unreachable Redis says so
 * and exits, rather than waiting silently.
 */
function reconnectStrategy(connected: { once: boolean }) {
  return (retries: number, cause: Error) => (connected.once ? Math.min(200 * (retries + 1), 2_000) : cause);
}

function newClient(url: string, connected: { once: boolean }) {
  return createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: MAX_REDIS_COMMANDS,
    socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: reconnectStrategy(connected) },
  });
}

type Client = ReturnType<typeof newClient>;

export class RedisBackplane implements Backplane {
  onMessage: ((bytes: Uint8Array) => void) | null = null;
  onLost: (() => void) | null = null;
  onClaimLost: ((hostId: string) => void) | null = null;
  private readonly claims = new Set<string>();
  private heartbeatTimer: TimerHandle | undefined;
  private refreshTimer: TimerHandle | undefined;
  private subscribed = true;
  private stopped = false;

  private constructor(
    readonly nodeId: string,
    private readonly pub: Client,
    private readonly sub: Client,
    private readonly clock: Clock,
    private readonly limits: RelayLimits,
  ) {}

  static async connect(options: {
    url: string;
    nodeId: string;
    clock: Clock;
    limits: RelayLimits;
  }): Promise<Result<RedisBackplane>> {
    const connected = { once: false };
    const pub = newClient(options.url, connected);
    const sub = newClient(options.url, connected);
    // Errors surface as failed commands and lost subscriptions; an unhandled 'error' would end the process.
    pub.on('error', () => {});
    sub.on('error', () => {});
    try {
      await pub.connect();
      await sub.connect();
      connected.once = true;
    } catch (error) {
      pub.destroy();
      sub.destroy();
      return fail('unavailable', `cannot reach Redis: ${(error as Error).message}`);
    }
    const plane = new RedisBackplane(options.nodeId, pub, sub, options.clock, options.limits);
    const deliver = (message: Buffer) =>
      plane.onMessage?.(new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
    try {
      await sub.subscribe([nodeChannel(options.nodeId), ALL], deliver, true);
    } catch (error) {
      pub.destroy();
      sub.destroy();
      return fail('unavailable', `cannot subscribe on Redis: ${(error as Error).message}`);
    }
    sub.on('reconnecting', () => plane.subscriptionDropped());
    sub.on('end', () => plane.subscriptionDropped());
    sub.on('ready', () => (plane.subscribed = true));
    await plane.heartbeat();
    plane.scheduleRefresh();
    return ok(plane);
  }

  get isUp(): boolean {
    return this.pub.isReady && this.sub.isReady;
  }

  async send(node: string, bytes: Uint8Array): Promise<boolean> {
    return this.publish(nodeChannel(node), bytes);
  }

  async broadcast(bytes: Uint8Array): Promise<boolean> {
    return this.publish(ALL, bytes);
  }

  async claim(hostId: string): Promise<void> {
    this.claims.add(hostId);
    await this.command(() =>
      this.pub.set(hostKey(hostId), this.nodeId, { expiration: { type: 'PX', value: this.limits.presenceTtlMs } }),
    );
  }

  async handOver(hostId: string, node: string): Promise<void> {
    this.claims.delete(hostId);
    // On the same connection as this node's own claim, so it runs after that claim however late.
    await this.command(() =>
      this.pub.eval(HAND_OVER, {
        keys: [hostKey(hostId)],
        arguments: [this.nodeId, node, String(this.limits.presenceTtlMs)],
      }),
    );
  }

  async release(hostId: string): Promise<void> {
    this.claims.delete(hostId);
    await this.command(() => this.pub.eval(RELEASE, { keys: [hostKey(hostId)], arguments: [this.nodeId] }));
  }

  async locate(hostId: string): Promise<string | undefined> {
    const node = await this.command(() => this.pub.get(hostKey(hostId)));
    if (typeof node !== 'string') return undefined;
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

  /** Leaves cleanly: claims and heartbeat deleted, connections closed. */
  async leave(): Promise<void> {
    this.stop();
    for (const hostId of [...this.claims]) await this.release(hostId);
    await this.command(() => this.pub.del(nodeKey(this.nodeId)));
    await Promise.allSettled([this.sub.close(), this.pub.close()]);
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
  }

  private subscriptionDropped(): void {
    if (!this.subscribed || this.stopped) return;
    this.subscribed = false;
    this.onLost?.();
  }

  private async publish(channel: string, bytes: Uint8Array): Promise<boolean> {
    if (this.stopped) return false;
    const sent = await this.command(() =>
      this.pub.publish(channel, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
    );
    return sent !== undefined;
  }

  private async heartbeat(): Promise<void> {
    await this.command(() =>
      this.pub.set(nodeKey(this.nodeId), '1', { expiration: { type: 'PX', value: this.limits.nodeTtlMs } }),
    );
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
    for (const hostId of [...this.claims]) {
      const kept = await this.command(() =>
        this.pub.eval(REFRESH, {
          keys: [hostKey(hostId)],
          arguments: [this.nodeId, String(this.limits.presenceTtlMs)],
        }),
      );
      if (kept === 0 && this.claims.delete(hostId)) this.onClaimLost?.(hostId);
    }
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
