import { RELAY_MAX_LINK_MESSAGE } from '@tether/shared-protocol';
import type { ClientOptions } from 'ws';
import { WebSocket } from 'ws';

/**
 * The socket under the host's relay link, as the link needs it: a `ws` WebSocket in production, an
 * in-memory fake in unit tests. Binary messages only; a write callback says when bytes have left
 * the process, so the link can count what each device has queued.
 */
export interface LinkSocket {
  /** Writes one message; `done` runs once it has been written out, or the socket failed. */
  send(bytes: Uint8Array, done: () => void): void;
  /** Starts a clean close. */
  close(code: number, reason: string): void;
  /** Destroys the socket at once (a dead peer does not answer a close). */
  terminate(): void;
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
    let closed = false;
    const socket: LinkSocket = {
      onOpen: null,
      onMessage: null,
      onClose: null,
      send(bytes, done) {
        if (ws.readyState !== ws.OPEN) {
          queueMicrotask(done);
          return;
        }
        ws.send(bytes, { binary: true }, () => done());
      },
      close(code, reason) {
        if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
      },
      terminate() {
        ws.terminate();
      },
    };
    const finish = (code: number, reason: string) => {
      if (closed) return;
      closed = true;
      socket.onClose?.(code, reason);
    };
    ws.on('open', () => socket.onOpen?.());
    ws.on('message', (data, isBinary) => {
      if (!isBinary) {
        // Not part of the protocol: the relay never sends text.
        ws.close(4004, 'text-message');
        return;
      }
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      socket.onMessage?.(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    });
    ws.on('unexpected-response', (request, response) => {
      request.destroy();
      finish(1006, `the relay answered HTTP ${response.statusCode}`);
    });
    ws.on('error', (error) => {
      finish(1006, error.message);
      ws.terminate();
    });
    ws.on('close', (code, reason) => finish(code, reason.toString()));
    return socket;
  };
}
