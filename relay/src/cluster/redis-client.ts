import { createClient, createSentinel } from 'redis';
import type { RedisTarget } from './redis-target.js';

/** Connections to Redis, the same to one Redis and through Sentinel. */

/** Commands the Redis client may hold unanswered: beyond it a command fails rather than queueing. */
const MAX_REDIS_COMMANDS = 100_000;
/** Milliseconds a command may wait for Redis's answer before it counts as failed: a Redis that
 * takes connections and never answers (stopped, swapping, a half-open link) must not hold a
 * device's connect, a publish or a heartbeat for ever. Under the 3 s node TTL, so a node whose
 * Redis stalls is not the last to know. */
export const COMMAND_TIMEOUT_MS = 2_000;
/** Milliseconds to reach Redis when connecting: 5 s. */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * Reconnect delays grow by 200 ms a try, up to 2 s: well inside the presence TTL. The same from
 * the first try: a node started while Redis is down or not answering listens and serves what it
 * holds, and joins the cluster when Redis answers.
 */
const reconnectStrategy = (retries: number) => Math.min(200 * (retries + 1), 2_000);

/** What the backplane uses of a Redis connection: the same on one Redis and through Sentinel. */
export interface Client {
  readonly isReady: boolean;
  on(event: 'error' | 'ready' | 'reconnecting' | 'end', listener: () => void): unknown;
  connect(): Promise<unknown>;
  subscribe(channels: string[], listener: (message: Buffer) => void, bufferMode: true): Promise<void>;
  publish(channel: string, message: Buffer): Promise<number>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  get(key: string): Promise<string | null>;
  exists(key: string): Promise<number>;
  del(key: string): Promise<number>;
  set(key: string, value: string, options: { expiration: { type: 'PX'; value: number } }): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
}

export function newClient(target: RedisTarget): Client {
  const options = {
    disableOfflineQueue: true,
    commandsQueueMaxLength: MAX_REDIS_COMMANDS,
    // Nagle off (the client's default, stated because the latency of a frame across nodes rests on
    // it): a publish, or a message to the subscriber, leaves at once rather than waiting for an
    // acknowledgement of the last one.
    socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy, noDelay: true },
  };
  if (target.kind === 'single') return createClient({ url: target.url, ...options });
  // The Sentinels tell which node is the master, and again after a failover; the connection to
  // the master is an ordinary client with the options above.
  return createSentinel({
    name: target.name,
    sentinelRootNodes: target.sentinels,
    nodeClientOptions: {
      ...options,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
    },
    sentinelClientOptions: { socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy } },
  });
}

/** Closes a client, waiting for what it has sent at most COMMAND_TIMEOUT_MS: a Redis that never
 * answers must not hold a node's shutdown. */
export async function closeClient(client: Client): Promise<void> {
  if (!client.isReady) return void client.destroy();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, COMMAND_TIMEOUT_MS)));
  await Promise.race([client.close().catch(() => {}), late]);
  clearTimeout(timer);
  client.destroy();
}
