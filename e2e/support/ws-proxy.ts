import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

/**
 * One WebSocket carried by the proxy: the client's socket (accepted here) and the one the proxy
 * opened to the backend for it.
 */
export interface ProxiedSocket {
  path: string;
  client: WebSocket;
  backend: WebSocket;
  openedAt: number;
  /** Set by hooks that need to remember something about this socket (a relay's `ready`). */
  marks: Set<string>;
}

/** What a hook decides about one message: pass it on (`undefined`), replace it, or drop it (`null`). */
export type MessageHook = (socket: ProxiedSocket, bytes: Uint8Array) => Uint8Array | null | undefined;

/**
 * A WebSocket and HTTP proxy on 127.0.0.1 in front of one backend port, as the server a client
 * dialled: every upgrade is accepted here and a socket of its own opened to the backend (with the
 * backend's Host), every message passed on unless a hook changes it, and plain HTTP requests piped
 * through. Whoever controls it speaks with the backend's voice: it can close a client with any code,
 * send it anything, or change what passes. Tests use it as a hostile relay, or a hostile path to a
 * host.
 */
export class WsProxy {
  readonly sockets = new Set<ProxiedSocket>();
  /** Messages from the backend to the client, and from the client to the backend. */
  fromBackend: MessageHook | undefined;
  fromClient: MessageHook | undefined;
  /** Called once a client's socket is carried (both ends open). */
  onCarried: ((socket: ProxiedSocket) => void) | undefined;
  /** When set, a new upgrade is refused with this HTTP status instead of carried. */
  refuseUpgrades: number | undefined;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 << 20 });
  private readonly raw = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    public backendPort: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(backendPort: number): Promise<WsProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new WsProxy(server, (server.address() as { port: number }).port, backendPort);
    server.on('connection', (socket) => {
      proxy.raw.add(socket);
      socket.on('close', () => proxy.raw.delete(socket));
    });
    server.on('request', (req, res) => proxy.pipeHttp(req, res));
    server.on('upgrade', (req, socket, head) => proxy.upgrade(req, socket as Socket, head));
    return proxy;
  }

  /** Sends the client a message the backend never sent. */
  sendToClient(socket: ProxiedSocket, bytes: Uint8Array): void {
    if (socket.client.readyState === WebSocket.OPEN) socket.client.send(bytes);
  }

  /** Closes the client's side with `code` (and the backend's quietly): what the client sees is `code`. */
  closeClient(socket: ProxiedSocket, code: number, reason = ''): void {
    if (socket.client.readyState === WebSocket.OPEN) socket.client.close(code, reason);
    else socket.client.terminate();
    socket.backend.terminate();
    this.sockets.delete(socket);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) {
      s.client.terminate();
      s.backend.terminate();
    }
    this.sockets.clear();
    for (const socket of this.raw) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    if (this.refuseUpgrades !== undefined) {
      socket.end(`HTTP/1.1 ${this.refuseUpgrades} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const path = req.url ?? '/';
    const backend = new WebSocket(`ws://127.0.0.1:${this.backendPort}${path}`, {
      perMessageDeflate: false,
      maxPayload: 64 << 20,
    });
    backend.once('unexpected-response', (_request, response) => {
      socket.end(`HTTP/1.1 ${response.statusCode ?? 502} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      backend.terminate();
    });
    backend.once('error', () => socket.destroy());
    backend.once('open', () => {
      this.wss.handleUpgrade(req, socket, head, (client) => {
        const carried: ProxiedSocket = { path, client, backend, openedAt: Date.now(), marks: new Set() };
        this.sockets.add(carried);
        const pass = (hook: MessageHook | undefined, bytes: Uint8Array, to: WebSocket) => {
          const out = hook ? hook(carried, bytes) : undefined;
          if (out === null || to.readyState !== WebSocket.OPEN) return;
          to.send(out ?? bytes);
        };
        backend.on('message', (data) => pass(this.fromBackend, toBytes(data), client));
        client.on('message', (data) => pass(this.fromClient, toBytes(data), backend));
        // A close passes on with its code; one without a code (1005, 1006) as a dropped socket.
        const end = (to: WebSocket) => (code: number, reason: Buffer) => {
          this.sockets.delete(carried);
          if (to.readyState !== WebSocket.OPEN) return;
          if (code === 1005 || code === 1006) to.terminate();
          else to.close(code, reason);
        };
        backend.on('close', end(client));
        client.on('close', end(backend));
        backend.on('error', () => client.terminate());
        client.on('error', () => backend.terminate());
        this.onCarried?.(carried);
      });
    });
  }

  private pipeHttp(req: IncomingMessage, res: ServerResponse): void {
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: this.backendPort,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: `127.0.0.1:${this.backendPort}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  }
}

function toBytes(data: unknown): Uint8Array {
  const b = Array.isArray(data) ? Buffer.concat(data as Buffer[]) : (data as Buffer);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
