import type { MessageWriter } from '@tether/shared-protocol';
import { RELAY_MAX_LINK_MESSAGE, wsAdapter } from '@tether/shared-protocol';
import type { ClientOptions } from 'ws';
import { WebSocket } from 'ws';

/**
 * The socket under the host's relay link, as the link needs it: a `ws` WebSocket in production, an
 * in-memory fake in unit tests. Binary messages only; a write callback says when bytes have left
 * the process, so the link can count what each device has queued.
 */
export interface LinkSocket extends MessageWriter {
  onOpen: (() => void) | null;
  onMessage: ((bytes: Uint8Array) => void) | null;
  /** Called once, when the socket has closed for any reason (a dial that failed too). */
  onClose: ((code: number, reason: string) => void) | null;
}

/** Opens a socket to a relay's host-link URL (`wss://relay.example.com/relay/host`). */
export type DialRelay = (url: string) => LinkSocket;

/** Milliseconds the WebSocket opening handshake (TCP, TLS, HTTP upgrade) may take. */
const OPEN_TIMEOUT_MS = 10_000;

/** Dials with `ws`: the relay's largest message is the cap on what is accepted, no compression
 * (a sealed frame does not compress, and compression would be a place to hide a decompression bomb). */
export function dialWebSocket(options: Pick<ClientOptions, 'ca'> = {}): DialRelay {
  return (url) => {
    const ws = new WebSocket(url, {
      maxPayload: RELAY_MAX_LINK_MESSAGE,
      perMessageDeflate: false,
      handshakeTimeout: OPEN_TIMEOUT_MS,
      ...options,
    });
    const adapter = wsAdapter(ws, {
      message: (bytes) => socket.onMessage?.(bytes),
      // Not part of the protocol: the relay never sends text.
      text: () => ws.close(4004, 'text-message'),
      error: (error) => adapter.ended(1006, error.message),
      closed: (code, reason) => socket.onClose?.(code, reason),
    });
    const socket: LinkSocket = {
      onOpen: null,
      onMessage: null,
      onClose: null,
      send: (bytes, done) => adapter.send(bytes, done),
      close: (code, reason) => adapter.close(code, reason),
      terminate: () => adapter.terminate(),
    };
    ws.on('open', () => socket.onOpen?.());
    ws.on('unexpected-response', (request, response) => {
      request.destroy();
      adapter.ended(1006, `the relay answered HTTP ${response.statusCode}`);
    });
    return socket;
  };
}
