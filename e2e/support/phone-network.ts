import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request } from 'node:http';
import type { Socket } from 'node:net';
import { connect } from 'node:net';

/**
 * The phone's network, for a browser that cannot be told to go offline (WebKitWebDriver has no
 * network emulation): an HTTP proxy on 127.0.0.1 that the browser sends every request through
 * (WebDriver's `proxy` capability; WebKitGTK uses it for loopback addresses too). Cut, it drops
 * every open connection and refuses new ones, as a phone that has lost its route to the computer:
 * the browser still says it is online, so the app learns it from its connections failing.
 *
 * It forwards plain HTTP (absolute-form requests), `CONNECT` tunnels, and WebSocket upgrades sent
 * as absolute-form requests, to loopback addresses only: anything else is refused, so a browser
 * reaching for the internet gets nowhere.
 */
export interface PhoneNetwork {
  /** `127.0.0.1:PORT`, the proxy's address for the browser's settings. */
  proxy: string;
  /** Drops every open connection and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
  /** Requests (and tunnels) forwarded, and refused while cut, so far. */
  counts(): { forwarded: number; refused: number };
  stop(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export async function startPhoneNetwork(): Promise<PhoneNetwork> {
  const sockets = new Set<Socket>();
  let cut = false;
  let forwarded = 0;
  let refused = 0;
  const track = (socket: Socket) => {
    if (cut) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  /** Host and port of a loopback target, or undefined (refused). */
  const target = (authority: string): { host: string; port: number } | undefined => {
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(authority);
    if (!match || !LOOPBACK.has(match[1]!)) return undefined;
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
  };
  /** Opens a socket to `to`; `ready` runs once it is connected, and either side closing closes both. */
  const dial = (from: Socket, to: { host: string; port: number }, ready: (upstream: Socket) => void) => {
    const upstream = connect(to.port, to.host);
    track(upstream);
    upstream.once('connect', () => {
      forwarded++;
      ready(upstream);
      upstream.pipe(from);
      from.pipe(upstream);
    });
    upstream.once('close', () => from.destroy());
    from.once('close', () => upstream.destroy());
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = URL.canParse(req.url ?? '') ? new URL(req.url!) : undefined;
    const to = url?.protocol === 'http:' ? target(url.host) : undefined;
    if (cut || !url || !to) {
      refused++;
      return void req.socket.destroy();
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const upstream = request(
      { host: to.host, port: to.port, method: req.method, path: url.pathname + url.search, headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('socket', (socket) => track(socket));
    upstream.once('response', () => forwarded++);
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const to = target(req.url ?? '');
    if (cut || !to) {
      refused++;
      return void socket.destroy();
    }
    dial(socket, to, (upstream) => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = URL.canParse(req.url ?? '') ? new URL(req.url!) : undefined;
    const to = url && /^(http|ws):$/.test(url.protocol) ? target(url.host) : undefined;
    if (cut || !url || !to) {
      refused++;
      return void socket.destroy();
    }
    dial(socket, to, (upstream) => {
      // The request again, in origin form, with its headers as they came.
      const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        if (req.rawHeaders[i]!.toLowerCase() !== 'proxy-connection')
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    proxy: `127.0.0.1:${port}`,
    cut: () => {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => void (cut = false),
    counts: () => ({ forwarded, refused }),
    stop: () => {
      cut = true;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
