import { CloseCode, wsAdapter } from '@tether/shared-protocol';
import type { WebSocket } from 'ws';
import type { GatewayTransport } from '../gateway/gateway-transport.js';
import type { HostCounters } from '../stats/host-counters.js';

/** A `ws` WebSocket as a GatewayTransport. Text messages are not part of the protocol: refused. */
export function wsTransport(socket: WebSocket, remoteAddress: string, stats: HostCounters): GatewayTransport {
  const ws = wsAdapter(socket, {
    message: (bytes) => transport.onMessage?.(bytes),
    text: () => {
      stats.add('ws:text-message');
      socket.close(CloseCode.ProtocolError, 'binary only');
    },
    error: () => stats.add('ws:error'),
    closed: (code, reason) => transport.onClose?.({ code, reason }),
  });
  const transport: GatewayTransport = {
    remoteAddress,
    onMessage: null,
    onClose: null,
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    bufferedAmount: () => socket.bufferedAmount,
  };
  return transport;
}
