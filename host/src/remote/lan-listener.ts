import type { Clock, PairPage, Result } from '@tether/shared-protocol';
import {
  FRAME_OVERHEAD,
  LINK_FRAME_OVERHEAD,
  MAX_FRAME_PLAINTEXT,
  MAX_LINK_FRAME_PLAINTEXT,
  SocketCap,
  every,
  fail,
  ok,
} from '@tether/shared-protocol';
import { getRequestListener } from '@hono/node-server';
import type { IncomingMessage, Server } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import type { DeviceGateway } from '../gateway/device-gateway.js';
import type { WsRefusal } from '../stats/host-counters.js';
import type { GatewayTransport } from '../gateway/gateway-transport.js';
import type { AppFile } from '@tether/shared-protocol';
import { classifyAddress, hostPort } from './bind-address.js';
import { createHttpApp } from './http-app.js';
import { wsTransport } from './ws-transport.js';

/** Sockets one address range may hold open (an IPv6 /64 is one range, a NAT64 client its IPv4
 * address: addressRange), HTTP and WebSocket alike: enough for a few tabs and the app's parallel
 * requests, far from what it takes to starve everyone else. */
export const MAX_SOCKETS_PER_ADDRESS = 32;
/** Sockets the listener holds open at once, from everyone. */
export const MAX_SOCKETS = 512;
/** Milliseconds a new socket may stay silent before its first request (or upgrade) starts: 5 s. A
 * browser sends its request as soon as it has connected; a socket that has said nothing by then is
 * closed (it lived 75 s). Between requests Node's keep-alive deadline applies. */
export const FIRST_BYTE_TIMEOUT_MS = 5_000;
/** Milliseconds a TLS handshake may take. */
const TLS_HANDSHAKE_MS = 10_000;
/** Milliseconds between Node's checks of the headers deadline (30 s by default). */
const HEADERS_CHECK_INTERVAL_MS = 1_000;

/** Milliseconds between WebSocket pings; a socket that missed one is ended (half-open TCP). */
const WS_PING_MS = 30_000;

export interface TlsMaterial {
  cert: string | Buffer;
  key: string | Buffer;
  /** The DNS name the certificate is for (a Tailscale MagicDNS name): used in URLs. */
  name?: string;
}

export interface LanListenerOptions {
  address: string;
  port: number;
  tls?: TlsMaterial;
  gateway: DeviceGateway;
  clock: Clock;
  app: ReadonlyMap<string, AppFile> | undefined;
  /** More origins allowed to call `/rc/*` and open `/rc/ws` (a relay's app origin). */
  extraOrigins?: readonly string[];
  /** Machines that dial in on `/machines/ws`; refused when absent. */
  machines?: { admits(source: string): boolean; accept(transport: GatewayTransport, source: string): void };
  /** Origins the app's pages may also connect to (the host's relay). */
  connectSources?: () => readonly string[];
}

/**
 * The LAN or Tailscale listener: one address, HTTP(S) for the app and pairing, a WebSocket for
 * sealed device connections. An adapter in front of the device gateway: it checks what only
 * HTTP can check (Host, Origin, paths, body sizes) and hands the rest over with the peer's address.
 */
export class LanListener {
  private readonly wss: WebSocketServer;
  /** Machine links: their own server, since a link frame may be bigger than a device frame. */
  private readonly machineWss: WebSocketServer;
  private readonly alive = new WeakMap<WebSocket, boolean>();
  /** Sockets per address range, and the first-byte deadline (SocketCap). */
  readonly sockets: SocketCap;
  private stopPings: (() => void) | undefined;
  private boundPort = 0;
  /** `Host` values this server answers to (lowercase `host:port`); set once it listens. */
  private readonly allowedHosts = new Set<string>();
  /** Its own origins and the configured extra ones. */
  private readonly allowedOrigins: Set<string>;
  /** Its own origins alone: the pages this listener serves. */
  private readonly ownOrigins = new Set<string>();

  private constructor(
    private readonly options: LanListenerOptions,
    private readonly server: Server | HttpsServer,
  ) {
    this.allowedOrigins = new Set(options.extraOrigins ?? []);
    const stats = options.gateway.stats;
    this.sockets = new SocketCap({
      perRange: MAX_SOCKETS_PER_ADDRESS,
      firstByteMs: FIRST_BYTE_TIMEOUT_MS,
      onRefused: () => stats.add('socket:too-many-from-address'),
      onSilent: () => stats.add('socket:idle'),
    });
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_PLAINTEXT + FRAME_OVERHEAD });
    this.machineWss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_LINK_FRAME_PLAINTEXT + LINK_FRAME_OVERHEAD,
    });
  }

  static async start(options: LanListenerOptions): Promise<Result<LanListener>> {
    const server = options.tls
      ? createHttpsServer({
          cert: options.tls.cert,
          key: options.tls.key,
          minVersion: 'TLSv1.2',
          handshakeTimeout: TLS_HANDSHAKE_MS,
          connectionsCheckingInterval: HEADERS_CHECK_INTERVAL_MS,
        })
      : createHttpServer({ connectionsCheckingInterval: HEADERS_CHECK_INTERVAL_MS });
    // Slow-loris bounds: headers within 10 s; a whole request within 70 s (a pair request is held
    // up to 50 s for the person's answer).
    server.headersTimeout = 10_000;
    server.requestTimeout = 70_000;
    server.keepAliveTimeout = 5_000;
    server.maxHeadersCount = 64;
    const remote = new LanListener(options, server);
    server.maxConnections = MAX_SOCKETS;
    remote.capSocketsPerAddress();
    const { gateway } = options;
    const app = createHttpApp({
      allowedHosts: () => remote.allowedHosts,
      allowedOrigins: () => remote.allowedOrigins,
      pair: (body, source, signal, origin) =>
        gateway.pair(body, source, signal, { secure: remote.secureChannel, page: remote.pageOf(origin) }),
      oneShot: (body, source) => gateway.call(body, source),
      app: options.app,
      https: options.tls !== undefined,
      stats: gateway.stats,
      ...(options.connectSources ? { connectSources: options.connectSources } : {}),
    });
    const listener = getRequestListener(app.fetch);
    server.on('request', (request, response) => {
      remote.sockets.started(request.socket);
      void listener(request, response);
    });
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      remote.upgrade(request, socket, head, (ws, source) => {
        gateway.accept(wsTransport(ws, source, gateway.stats));
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
    remote.stopPings = every(options.clock, WS_PING_MS, () => remote.pingAll());
    return ok(remote);
  }

  get port(): number {
    return this.boundPort;
  }

  get mode(): 'http' | 'https' {
    return this.options.tls ? 'https' : 'http';
  }

  /**
   * Whether nobody on the network could have changed what a phone received from this listener:
   * TLS, or a loopback address (traffic never leaves the computer). Plain HTTP on a LAN or
   * Tailscale address is not, and pairings over it get fewer scopes by default.
   */
  get secureChannel(): boolean {
    return this.options.tls !== undefined || classifyAddress(this.options.address) === 'loopback';
  }

  /**
   * The page a pair request came from, by its `Origin` header (a browser sets it on every POST and a
   * page cannot change it): one of this listener's own, another allowed one, or none at all (a
   * program, not a page). Any other origin was refused before the request got here.
   */
  pageOf(origin: string | undefined): PairPage {
    if (origin === undefined) return { from: 'none' };
    return this.ownOrigins.has(origin) ? { from: 'host', origin } : { from: 'other', origin };
  }

  /** The origin phones load: the certificate's name when there is one, else the address. */
  get url(): string {
    const host = this.options.tls?.name ?? this.options.address;
    return `${this.mode}://${hostPort(host, this.boundPort)}`;
  }

  /** Replaces the certificate (renewal) without dropping connections. */
  setTls(tls: TlsMaterial): void {
    if ('setSecureContext' in this.server) this.server.setSecureContext({ cert: tls.cert, key: tls.key });
  }

  async close(): Promise<void> {
    this.stopPings?.();
    for (const ws of [...this.wss.clients, ...this.machineWss.clients]) ws.terminate();
    this.wss.close();
    this.machineWss.close();
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
    for (const host of this.allowedHosts) this.ownOrigins.add(`${this.mode}://${host}`);
    for (const origin of this.ownOrigins) this.allowedOrigins.add(origin);
  }

  /** Counts sockets per address range, refusing past the cap, and closes sockets left silent. */
  private capSocketsPerAddress(): void {
    this.server.on('connection', (socket: Socket) => {
      if (this.sockets.admit(socket) && !this.options.tls) this.sockets.awaitFirstRequest(socket);
    });
    // Over TLS the deadline starts after the handshake (which has its own), on the TLS socket.
    this.server.on('secureConnection', (socket: Socket) => this.sockets.awaitFirstRequest(socket));
  }

  private upgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    accept: (ws: WebSocket, source: string) => void,
  ): void {
    const stats = this.options.gateway.stats;
    // The request has come: its deadlines are the server's (a WebSocket is kept alive by pings,
    // and stays counted against its address).
    this.sockets.started(request.socket);
    const refuse = (status: number, reason: WsRefusal) => {
      stats.add(`ws:${reason}`);
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const path = (request.url ?? '').split('?')[0];
    if (path === '/machines/ws') return this.upgradeMachine(request, socket, head, refuse);
    if (path !== '/rc/ws') return refuse(404, 'not-found');
    const host = request.headers.host?.toLowerCase();
    if (!host || !this.allowedHosts.has(host)) return refuse(403, 'bad-host');
    const origin = request.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(origin)) return refuse(403, 'bad-origin');
    const source = request.socket.remoteAddress ?? 'unknown';
    if (this.options.gateway.admits(source)) return refuse(503, 'too-many-connections');
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.alive.set(ws, true);
      ws.on('pong', () => this.alive.set(ws, true));
      accept(ws, source);
    });
  }

  /**
   * A machine dialling in. Same Host check as a device (DNS rebinding); a machine is no browser, so
   * any Origin at all is refused: no web page may open a machine link. The link authenticates
   * itself (the host's key in the handshake, the machine's token in its first sealed message);
   * its liveness is the link's own pings.
   */
  private upgradeMachine(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    refuse: (status: number, reason: WsRefusal) => void,
  ): void {
    const machines = this.options.machines;
    if (!machines) return refuse(404, 'not-found');
    const host = request.headers.host?.toLowerCase();
    if (!host || !this.allowedHosts.has(host)) return refuse(403, 'bad-host');
    if (request.headers.origin !== undefined) return refuse(403, 'machine-from-browser');
    const source = request.socket.remoteAddress ?? 'unknown';
    if (!machines.admits(source)) return refuse(503, 'too-many-machine-links');
    this.machineWss.handleUpgrade(request, socket, head, (ws) => {
      machines.accept(wsTransport(ws, source, this.options.gateway.stats), source);
    });
  }

  private pingAll(): void {
    for (const ws of this.wss.clients) {
      if (!this.alive.get(ws)) {
        this.options.gateway.stats.add('ws:dead');
        ws.terminate();
        continue;
      }
      this.alive.set(ws, false);
      ws.ping();
    }
  }
}
