import type { CloseInfo } from '@tether/shared-protocol';
import { CloseCode } from '@tether/shared-protocol';
import type { WebSocket } from 'ws';
import type { GatewayTransport } from '../gateway/gateway-transport.js';
import type { HostCounters } from '../stats/host-counters.js';

/** A `ws` WebSocket as a GatewayTransport. Text messages are not part of the protocol: refused. */
export function wsTransport(socket: WebSocket, remoteAddress: string, stats: HostCounters): GatewayTransport {
  const transport: GatewayTransport = {
    remoteAddress,
    onMessage: null,
    onClose: null,
    send(data) {
      if (socket.readyState === socket.OPEN) socket.send(data);
    },
    close(code, reason) {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
    },
    bufferedAmount: () => socket.bufferedAmount,
  };
  socket.on('message', (data, isBinary) => {
    if (!isBinary) {
      stats.add('ws:text-message');
      socket.close(CloseCode.ProtocolError, 'binary only');
      return;
    }
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    transport.onMessage?.(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  });
  let closed = false;
  const closeOnce = (info: CloseInfo) => {
    if (closed) return;
    closed = true;
    transport.onClose?.(info);
  };
  socket.on('close', (code, reason) => closeOnce({ code, reason: reason.toString() }));
  socket.on('error', () => {
    stats.add('ws:error');
    socket.terminate();
  });
  return transport;
}
