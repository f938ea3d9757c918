import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { SocketCap } from '@tether/shared-protocol';

/**
 * Puts every socket of the relay's listener under `cap` (shared-protocol's SocketCap): counted per
 * address range from its connection, and given the first-byte deadline once it can carry a request
 * (over TLS, after its handshake, which has a deadline of its own). A request lifts the deadline;
 * an upgrade does too, and `ws-upgrade.ts` releases the socket once it is a WebSocket.
 */
export function guardSockets(server: Server, cap: SocketCap, tls: boolean): void {
  server.on('connection', (socket: Socket) => {
    if (cap.admit(socket) && !tls) cap.awaitFirstRequest(socket);
  });
  if (tls) server.on('secureConnection', (socket: Socket) => cap.awaitFirstRequest(socket));
  server.on('request', (req: IncomingMessage) => cap.started(req.socket));
}
