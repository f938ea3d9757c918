import type { Clock, HostIdentity, RandomBytes, Result } from '@tether/shared-protocol';
import { FRAME_OVERHEAD, MAX_FRAME_PLAINTEXT, ReplayCache, fail, ok } from '@tether/shared-protocol';
import { getRequestListener } from '@hono/node-server';
import type { IncomingMessage, Server } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import type { ApprovalBroker } from '../agent/approval-broker.js';
import type { SessionManager } from '../agent/session-manager.js';
import type { DeviceStore } from '../store/device-store.js';
import type { EventLog } from '../store/event-log.js';
import type { AppFile } from './app-files.js';
import { hostPort } from './bind-address.js';
import { DeviceConnection } from './device-connection.js';
import { DeviceHub } from './device-hub.js';
import { deviceMethods } from './device-methods.js';
import { createHttpApp } from './http-app.js';
import { oneShotEndpoint } from './one-shot-endpoint.js';
import type { PairRequestInfo } from './pairing-service.js';
import { PairingService } from './pairing-service.js';
import { Counters } from './stats.js';
import { wsTransport } from './ws-transport.js';

/** Open device connections at most; more are refused with 503 at the upgrade. */
export const MAX_CONNECTIONS = 64;
/** Milliseconds between WebSocket pings; a socket that missed one is ended (half-open TCP). */
const WS_PING_MS = 30_000;

export interface TlsMaterial {
  cert: string | Buffer;
  key: string | Buffer;
  /** The DNS name the certificate is for (a Tailscale MagicDNS name): used in URLs. */
  name?: string;
}

export interface RemoteServerOptions {
  address: string;
  port: number;
  tls?: TlsMaterial;
  identity: HostIdentity;
  hostName: string;
  version: string;
  devices: DeviceStore;
  log: EventLog;
  sessions: SessionManager;
  approvals: ApprovalBroker;
  roots: readonly string[];
  models: readonly string[];
  app: ReadonlyMap<string, AppFile> | undefined;
  /** More origins allowed to call `/rc/*` and open `/rc/ws` (a relay's app origin). */
  extraOrigins?: readonly string[];
  clock: Clock;
  random: RandomBytes;
  newId: (prefix: string) => string;
  onPairRequest: (request: PairRequestInfo) => void;
  onPairSettled?: (id: string) => void;
  onWarning: (text: string) => void;
  /** Milliseconds a pair request waits for the person (tests shorten it). */
  pairAnswerWaitMs?: number;
  /** Pair attempts per source address per minute (default 10). */
  pairAttemptsPerMinute?: number;
}

/**
 * The remote-control server: one address, HTTP(S) for the app and pairing, a WebSocket for
 * sealed device connections. It is a view of the host's session manager, approvals and event log.
 */
export class RemoteServer {
  readonly stats = new Counters();
  readonly hub: DeviceHub;
  readonly pairing: PairingService;
  private readonly wss: WebSocketServer;
  private readonly alive = new WeakMap<WebSocket, boolean>();
  private pingTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private boundPort = 0;
  /** `Host` values this server answers to (lowercase `host:port`); set once it listens. */
  private readonly allowedHosts = new Set<string>();
  /** Its own origins and the configured extra ones. */
  private readonly allowedOrigins: Set<string>;

  private constructor(
    private readonly options: RemoteServerOptions,
    private readonly server: Server | HttpsServer,
  ) {
    this.hub = new DeviceHub(options.devices, options.clock);
    this.pairing = new PairingService({
      identity: options.identity,
      devices: options.devices,
      clock: options.clock,
      random: options.random,
      newId: options.newId,
      hostName: options.hostName,
      onRequest: options.onPairRequest,
      ...(options.onPairSettled ? { onSettled: options.onPairSettled } : {}),
      onWarning: options.onWarning,
      ...(options.pairAnswerWaitMs !== undefined ? { answerWaitMs: options.pairAnswerWaitMs } : {}),
      ...(options.pairAttemptsPerMinute !== undefined ? { attemptsPerMinute: options.pairAttemptsPerMinute } : {}),
    });
    this.allowedOrigins = new Set(options.extraOrigins ?? []);
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_PLAINTEXT + FRAME_OVERHEAD });
  }

  static async start(options: RemoteServerOptions): Promise<Result<RemoteServer>> {
    const server = options.tls
      ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2' })
      : createHttpServer();
    // Slow-loris bounds: headers within 10 s; a whole request within 70 s (a pair request is held
    // up to 50 s for the person's answer).
    server.headersTimeout = 10_000;
    server.requestTimeout = 70_000;
    server.keepAliveTimeout = 5_000;
    server.maxHeadersCount = 64;
    const remote = new RemoteServer(options, server);
    const replay = new ReplayCache(options.clock);
    const handlers = deviceMethods({
      hostId: options.identity.hostId,
      hostName: options.hostName,
      version: options.version,
      sessions: options.sessions,
      approvals: options.approvals,
      devices: options.devices,
      hub: remote.hub,
      roots: options.roots,
      models: options.models,
      clock: options.clock,
    });
    const app = createHttpApp({
      allowedHosts: () => remote.allowedHosts,
      allowedOrigins: () => remote.allowedOrigins,
      pair: (body, source, signal) => remote.pairing.pair(body, source, signal),
      oneShot: oneShotEndpoint({
        identity: options.identity,
        devices: options.devices,
        clock: options.clock,
        random: options.random,
        replay,
        handlers,
        stats: remote.stats,
      }),
      app: options.app,
      https: options.tls !== undefined,
      stats: remote.stats,
    });
    const listener = getRequestListener(app.fetch);
    server.on('request', (request, response) => void listener(request, response));
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      remote.upgrade(request, socket, head, (ws) => {
        const transport = wsTransport(ws, request.socket.remoteAddress ?? 'unknown', remote.stats);
        new DeviceConnection(transport, {
          identity: options.identity,
          lookupDevice: (id) => options.devices.get(id),
          replay,
          clock: options.clock,
          random: options.random,
          stats: remote.stats,
          log: options.log,
          handlers,
          onOpen: (c) => remote.hub.opened(c),
          onClose: (c) => remote.hub.closed(c),
        });
      }),
    );
    const listening = await new Promise<Result<number>>((resolve) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        resolve(
          fail(
            'unavailable',
            `cannot listen on ${hostPort(options.address, options.port)}: ${error.code === 'EADDRINUSE' ? 'the port is in use (choose another with --port)' : error.message}`,
          ),
        ),
      );
      server.listen(options.port, options.address, () => {
        const address = server.address();
        resolve(ok(typeof address === 'object' && address ? address.port : options.port));
      });
    });
    if (!listening.ok) return listening;
    remote.listened(listening.value);
    remote.unsubscribe = options.log.subscribe((event) => remote.hub.deliver(event));
    remote.pingTimer = setInterval(() => remote.pingAll(), WS_PING_MS);
    remote.pingTimer.unref();
    return ok(remote);
  }

  get port(): number {
    return this.boundPort;
  }

  get mode(): 'http' | 'https' {
    return this.options.tls ? 'https' : 'http';
  }

  /** The origin phones load: the certificate's name when there is one, else the address. */
  get url(): string {
    const host = this.options.tls?.name ?? this.options.address;
    return `${this.mode}://${hostPort(host, this.boundPort)}`;
  }

  pairLink(): { link: string; expiresAt: number } {
    return this.pairing.currentLink(this.url);
  }

  /** Replaces the certificate (renewal) without dropping connections. */
  setTls(tls: TlsMaterial): void {
    if ('setSecureContext' in this.server) this.server.setSecureContext({ cert: tls.cert, key: tls.key });
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pairing.close();
    this.hub.closeAll();
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Fixes the port, and with it the Host and Origin values every request is checked against. */
  private listened(port: number): void {
    this.boundPort = port;
    const defaultPort = this.mode === 'https' ? 443 : 80;
    for (const host of [this.options.address, this.options.tls?.name]) {
      if (!host) continue;
      this.allowedHosts.add(hostPort(host, port).toLowerCase());
      if (port === defaultPort) this.allowedHosts.add((host.includes(':') ? `[${host}]` : host).toLowerCase());
    }
    for (const host of this.allowedHosts) this.allowedOrigins.add(`${this.mode}://${host}`);
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, accept: (ws: WebSocket) => void): void {
    const refuse = (status: number, reason: string) => {
      this.stats.add(`ws:${reason}`);
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/rc/ws') return refuse(404, 'not-found');
    const host = request.headers.host?.toLowerCase();
    if (!host || !this.allowedHosts.has(host)) return refuse(403, 'bad-host');
    const origin = request.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(origin)) return refuse(403, 'bad-origin');
    if (this.wss.clients.size >= MAX_CONNECTIONS) return refuse(503, 'too-many-connections');
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.alive.set(ws, true);
      ws.on('pong', () => this.alive.set(ws, true));
      accept(ws);
    });
  }

  private pingAll(): void {
    for (const ws of this.wss.clients) {
      if (!this.alive.get(ws)) {
        this.stats.add('ws:dead');
        ws.terminate();
        continue;
      }
      this.alive.set(ws, false);
      ws.ping();
    }
  }
}
