import type { Clock, RandomBytes, Result } from '@tether/shared-protocol';
import {
  RELAY_MAX_LINK_MESSAGE,
  SocketCap,
  fail,
  ok,
  relayOrigin,
  secureRandom,
  systemClock,
  toBase64Url,
} from '@tether/shared-protocol';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import { WebSocketServer } from 'ws';
import type { AppFiles } from '@tether/shared-protocol';
import { isMeshAddress } from './cluster/mesh-auth.js';
import type { MeshOptions, RedisCluster } from './cluster/redis-cluster.js';
import { parseRedisTarget } from './cluster/redis-target.js';
import { createRelayApp } from './http-app.js';
import type { RelayLimits } from './limits.js';
import { DRAIN_GRACE_MS } from './limits.js';
import {
  DEFAULT_LIMITS,
  HEADERS_CHECK_INTERVAL_MS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_HEADERS,
  REQUEST_TIMEOUT_MS,
  TLS_HANDSHAKE_TIMEOUT_MS,
} from './limits.js';
import { guardSockets } from './listener-sockets.js';
import { RelayMetrics } from './metrics.js';
import { normalize } from './source-address.js';
import { Switchboard } from './switchboard.js';
import { handleUpgrades } from './ws-upgrade.js';

export interface RelayServerOptions {
  /** The address to listen on (never a wildcard: checked by the CLI). */
  bind: string;
  /** 0 picks a free port. */
  port: number;
  /** The URL phones and hosts use (behind a load balancer, its HTTPS URL). Default: this listener. */
  publicUrl?: string;
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Redis URL: share presence and forward between nodes. */
  redisUrl?: string;
  /** With Redis: forward stream data to other nodes over links between them (docs/relay.md, "The mesh"). */
  mesh?: MeshOptions;
  app?: AppFiles;
  /** Serve no page and no script at all, only the relay endpoints (`--no-app`). */
  forwardOnly?: boolean;
  trustedProxies?: readonly string[];
  limits?: Partial<RelayLimits>;
  clock?: Clock;
  random?: RandomBytes;
  /** This node's name in the cluster; random by default. */
  nodeId?: string;
}

/** Bytes of a node id: 16 random bytes, 22 characters of base64url. */
const NODE_ID_BYTES = 16;

/** Milliseconds a clean shutdown waits for sockets to finish closing before it destroys them. */
const SHUTDOWN_GRACE_MS = 2_000;

/** Milliseconds start-up waits for Redis before listening without it (it joins when Redis answers). */
const REDIS_JOIN_WAIT_MS = 1_000;

/** Milliseconds between looks at whether every host has left a draining node. */
const DRAIN_POLL_MS = 50;

/**
 * A relay node: the HTTP(S) server, its WebSocket endpoints and, with `redisUrl`, its place in a
 * cluster. `close()` shuts it down cleanly (clients are told to go elsewhere, its hosts' presence
 * is released); `crash()` drops everything at once without telling anyone, as a dying process would.
 */
export class RelayServer {
  private constructor(
    private readonly state: { closing: boolean },
    readonly nodeId: string,
    readonly url: string,
    readonly origin: string,
    readonly port: number,
    readonly metrics: RelayMetrics,
    readonly switchboard: Switchboard,
    private readonly server: ServerType,
    private readonly wss: WebSocketServer,
    readonly cluster: RedisCluster | undefined,
  ) {}

  static async start(options: RelayServerOptions): Promise<Result<RelayServer>> {
    const clock = options.clock ?? systemClock;
    const random = options.random ?? secureRandom;
    const limits: RelayLimits = { ...DEFAULT_LIMITS, ...options.limits };
    const nodeId = options.nodeId ?? toBase64Url(random(NODE_ID_BYTES));
    // A malformed Redis setting is refused before anything listens.
    const redisTarget = options.redisUrl !== undefined ? parseRedisTarget(options.redisUrl) : undefined;
    if (redisTarget && !redisTarget.ok) return redisTarget;
    if (options.mesh && !redisTarget) return fail('bad-request', 'the mesh joins nodes of a cluster: give --redis too');
    if (options.mesh && !isMeshAddress(options.mesh.host)) {
      return fail('bad-request', `the mesh listens on loopback or a private address only, not ${options.mesh.host}`);
    }
    const metrics = new RelayMetrics();
    const servesApp = !options.forwardOnly && options.app !== undefined;
    const switchboard = new Switchboard({ clock, random, limits, metrics, origin: '', servesApp });
    const state = { closing: false };
    let cluster: RedisCluster | undefined;
    const trustedProxies = new Set(options.trustedProxies ?? []);
    const sockets = new SocketCap({
      perRange: limits.maxSocketsPerAddress,
      firstByteMs: limits.firstByteTimeoutMs,
      uncapped: (peer) => trustedProxies.has(normalize(peer) ?? peer),
      onRefused: () => metrics.refuse('sockets-per-address'),
      onSilent: () => metrics.refuse('first-byte-timeout'),
    });
    const app = createRelayApp({
      relay: switchboard,
      limits,
      metrics,
      clock,
      trustedProxies,
      app: options.forwardOnly ? 'forward-only' : options.app,
      isClosing: () => state.closing,
    });
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: RELAY_MAX_LINK_MESSAGE,
      perMessageDeflate: false,
      clientTracking: false,
    });
    const listening = await new Promise<Result<ServerType>>((resolve) => {
      const server = serve(
        {
          fetch: app.fetch,
          hostname: options.bind,
          port: options.port,
          // Node checks the headers deadline only this often: 30 s by default.
          serverOptions: { connectionsCheckingInterval: HEADERS_CHECK_INTERVAL_MS },
          ...(options.tls
            ? {
                createServer: createHttpsServer,
                serverOptions: {
                  cert: options.tls.cert,
                  key: options.tls.key,
                  minVersion: 'TLSv1.2' as const,
                  handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
                  connectionsCheckingInterval: HEADERS_CHECK_INTERVAL_MS,
                },
              }
            : {}),
        },
        () => resolve(ok(server)),
      );
      guardSockets(server as Server, sockets, options.tls !== undefined);
      handleUpgrades(server as Server, app, wss, sockets);
      server.once('error', (error: NodeJS.ErrnoException) =>
        resolve(
          fail(
            'unavailable',
            error.code === 'EADDRINUSE'
              ? `port ${options.port} on ${options.bind} is in use (choose another with --port)`
              : `cannot listen on ${options.bind}:${options.port}: ${error.message}`,
          ),
        ),
      );
    });
    if (!listening.ok) return listening;
    const server = listening.value as Server;
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.maxHeadersCount = MAX_HEADERS;
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const host = options.bind.includes(':') ? `[${options.bind}]` : options.bind;
    const url = options.publicUrl ?? `${options.tls ? 'https' : 'http'}://${host}:${port}`;
    const origin = relayOrigin(url);
    if (!origin) {
      server.close();
      return fail('bad-request', `--public-url ${url} is not an http(s) URL`);
    }
    switchboard.setOrigin(origin);

    if (redisTarget?.ok) {
      // Loaded only for a cluster: a single node never pays for the Redis client.
      const { RedisCluster } = await import('./cluster/redis-cluster.js');
      // Waits for Redis a moment at most: a healthy cluster is joined before the node says it is
      // up, and one that is down or not answering is joined later; until then cross-node traffic
      // is refused (`tether_relay_cluster_up 0`), as when Redis drops at run time.
      const joined = await RedisCluster.join({
        target: redisTarget.value,
        nodeId,
        clock,
        limits,
        metrics,
        switchboard,
        ...(options.mesh ? { mesh: options.mesh } : {}),
      });
      if (typeof joined === 'string') {
        await new Promise((resolve) => server.close(resolve));
        return fail('unavailable', joined);
      }
      cluster = joined;
      await cluster.joinedWithin(REDIS_JOIN_WAIT_MS);
      switchboard.cluster = cluster;
    }

    const relay = new RelayServer(
      state,
      nodeId,
      url,
      origin,
      port,
      metrics,
      switchboard,
      listening.value,
      wss,
      cluster,
    );
    relay.registerGauges();
    return ok(relay);
  }

  /** Shuts down cleanly: no new sockets, clients told to go elsewhere (1001), presence released. */
  async close(): Promise<void> {
    if (this.state.closing) return;
    this.state.closing = true;
    await this.shutdown();
  }

  /**
   * Drains, then shuts down (SIGTERM): no new sockets or requests from now on (503
   * `shutting-down`, so a load balancer's next try goes to another node), every host linked here
   * told to link again elsewhere (`drain`), and once they have all gone, or `graceMs` has passed,
   * the rest closed as `close` does. Devices of a host that moved are closed with it when its new
   * link wins, and reconnect to wherever it is; a rolling restart loses nothing.
   */
  async drain(graceMs: number = DRAIN_GRACE_MS): Promise<void> {
    if (this.state.closing) return;
    this.state.closing = true;
    this.switchboard.drainHosts();
    const until = Date.now() + graceMs;
    while (this.switchboard.linkedHosts > 0 && Date.now() < until) {
      await new Promise<void>((resolve) => setTimeout(resolve, DRAIN_POLL_MS).unref());
    }
    await this.shutdown();
  }

  private async shutdown(): Promise<void> {
    this.switchboard.closeAll(false);
    await this.cluster?.leave();
    const server = this.server as Server;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.closeAllConnections();
      }, SHUTDOWN_GRACE_MS);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      server.closeIdleConnections();
    });
    this.wss.close();
  }

  /** Stops at once, as a crashed process would: sockets destroyed, nothing released in Redis. */
  async crash(): Promise<void> {
    if (this.state.closing) return;
    this.state.closing = true;
    this.cluster?.crash();
    this.switchboard.closeAll(true);
    const server = this.server as Server;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.wss.close();
  }

  private registerGauges(): void {
    const m = this.metrics;
    const s = this.switchboard;
    m.gauge('tether_relay_node_info', "This node's id (random at each start), as a label; always 1.", () => [
      [{ node: this.nodeId }, 1],
    ]);
    m.gauge('tether_relay_connections', 'Open WebSocket connections by kind; host links are their own series.', () => [
      [{ kind: 'host' }, s.hostCount],
      [{ kind: 'device' }, s.deviceCount],
      [{ kind: 'pending' }, s.census.pending],
    ]);
    m.gauge(
      'tether_relay_queued_bytes',
      'Bytes handed to sockets and not yet written, across the node.',
      () => s.budget.used,
    );
    m.gauge(
      'tether_relay_queued_bytes_high_water',
      'The most bytes queued at once since the node started.',
      () => s.budget.highWater,
    );
    m.gauge('tether_relay_pending_requests', 'Pair requests and calls waiting for a host.', () => s.requests.size);
    if (this.cluster) {
      const c = this.cluster;
      m.gauge(
        'tether_relay_cluster_inflight_bytes',
        'Bytes published to Redis and not yet acknowledged.',
        () => c.inflightBytes,
      );
      m.gauge('tether_relay_cluster_up', 'Whether this node is connected to Redis.', () => (c.isUp ? 1 : 0));
      m.gauge(
        'tether_relay_mesh_links',
        'Mesh links this node dialed to other nodes and holds now.',
        () => c.meshLinks,
      );
    }
    m.gauge('process_resident_memory_bytes', 'Resident memory of the relay process.', () => process.memoryUsage.rss());
    m.gauge('nodejs_heap_used_bytes', 'V8 heap in use.', () => process.memoryUsage().heapUsed);
  }
}
