import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { SocketCap } from '@tether/shared-protocol';
import type { Hono } from 'hono';
import type { WebSocket, WebSocketServer } from 'ws';

/**
 * What an upgrade request carries through the relay's Hono app (as its `env`): the request, for the
 * peer's address, and `upgrade`, which an admitting route calls with what to do with the socket.
 */
export interface UpgradeEnv {
  incoming: IncomingMessage;
  upgrade: (open: (ws: WebSocket) => void) => void;
}

/** Bytes of a refusal's body written before the upgrade, at most: the answer is small and final. */
const REFUSAL_MAX_BODY = 4096;

/**
 * Handles WebSocket upgrades on `server`: each request goes through `app` (the same routes, with
 * their admission checks: node full, per-address rate, host id), and only a route that admits it
 * has it upgraded by `ws`; anything else gets the route's answer as a plain HTTP response and the
 * socket is closed. Nothing of the request outlives the upgrade: the socket is `ws`'s own, with no
 * Request, URL or closure of the web framework kept per connection (which is most of what an
 * idle connection cost through a framework's WebSocket helper).
 */
export function handleUpgrades(server: Server, app: Hono, wss: WebSocketServer, cap: SocketCap): void {
  server.on('upgrade', (req: IncomingMessage, duplex: Duplex, head: Buffer) => {
    // An HTTP server's upgrade hands over its TCP (or TLS) socket.
    const socket = duplex as Socket;
    socket.on('error', ignore);
    cap.started(socket);
    void upgrade(app, wss, req, socket, head, cap);
  });
}

async function upgrade(
  app: Hono,
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  cap: SocketCap,
) {
  let open: ((ws: WebSocket) => void) | undefined;
  const env: UpgradeEnv = { incoming: req, upgrade: (o) => (open = o) };
  let response: Response;
  try {
    response = await app.fetch(toRequest(req), env);
  } catch {
    response = new Response(null, { status: 400 });
  }
  if (socket.destroyed) return;
  if (!open) return refuse(socket, response);
  const accept = open;
  wss.handleUpgrade(req, socket, head, (ws) => {
    socket.off('error', ignore);
    // A WebSocket from here: the pending pool and the connection limits bound it, not the cap.
    cap.release(socket);
    accept(ws);
  });
}

function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.append(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The path only matters to the routes; the host is never trusted for anything.
  return new Request(new URL(req.url ?? '/', 'http://relay.invalid'), { headers });
}

/** Writes the route's refusal (its status, headers and body) and closes the socket. */
async function refuse(socket: Duplex, response: Response): Promise<void> {
  let body: Buffer;
  try {
    body = Buffer.from(await response.arrayBuffer()).subarray(0, REFUSAL_MAX_BODY);
  } catch {
    body = Buffer.alloc(0);
  }
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'connection') lines.push(`${name}: ${value}`);
  });
  lines.push(`Content-Length: ${body.length}`, 'Connection: close', '', '');
  if (!socket.destroyed) socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), body]), () => socket.destroy());
}

function ignore(): void {}
