import type { Writable } from 'node:stream';
import { WsAdapter } from '@tether/shared-protocol';
import type { WebSocket } from 'ws';
import type { PeerPort, PortHandler } from './peer-port.js';

/** A text message reaches the relay's handler as this, with `binary` false: the relay refuses it. */
const NO_BYTES = new Uint8Array(0);

/**
 * A `ws` WebSocket as a PeerPort: the link kit's adapter, with the relay's corking, backpressure,
 * pings and parser cap. The socket is `ws`'s own, upgraded by `ws-upgrade.ts`: nothing else holds a
 * request, a URL or a closure per socket, and a message reaches the relay as the Buffer `ws` parsed,
 * viewed and never copied.
 */
export class WsPort extends WsAdapter<WebSocket> implements PeerPort {
  handler: PortHandler | null = null;
  /** The parser refused a message over the cap: the close is reported as 1009, whatever the socket says. */
  private tooLarge = false;
  /** The socket is corked until the end of this tick (see `send`). */
  private corked = false;

  constructor(
    ws: WebSocket,
    readonly source: string,
  ) {
    super(ws);
    ws.on('pong', onPong);
  }

  override send(bytes: Uint8Array, done: () => void): void {
    // Every message sent in one tick leaves in one write: the frames a read of another socket
    // brought (many, under load) cost one system call rather than one each. The socket is uncorked
    // before the event loop goes on, so a lone frame waits for nothing but the rest of the current
    // callback.
    if (!this.corked && this.ws.readyState === this.ws.OPEN) {
      const socket = rawSocket(this.ws);
      if (socket) {
        socket.cork();
        this.corked = true;
        process.nextTick(uncork, this, socket);
      }
    }
    super.send(bytes, done);
  }

  /** @internal the end of the tick in which `send` corked the socket. */
  uncorked(): void {
    this.corked = false;
  }

  pause(): void {
    this.ws.pause();
  }

  resume(): void {
    this.ws.resume();
  }

  ping(): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.ping();
  }

  setMaxMessage(bytes: number): void {
    setParserLimit(this.ws, bytes);
  }

  /** @internal a pong from the peer. */
  ponged(): void {
    this.handler?.portPong();
  }

  protected received(bytes: Uint8Array): void {
    this.handler?.portMessage(bytes, true);
  }

  protected refusedText(): void {
    this.handler?.portMessage(NO_BYTES, false);
  }

  protected override failed(error: Error & { code?: string }): void {
    if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.tooLarge = true;
  }

  protected closed(code: number, reason: string): void {
    this.handler?.portClosed(this.tooLarge ? 1009 : code, reason);
  }
}

function onPong(this: WebSocket): void {
  (WsAdapter.of(this) as WsPort).ponged();
}

function uncork(port: WsPort, socket: Writable): void {
  port.uncorked();
  socket.uncork();
}

/**
 * The TCP (or TLS) socket under a `ws` WebSocket. `ws` keeps it in a field that is not part of its
 * API: its presence is checked here and a test fails if a `ws` update moves it. Without it, each
 * message is written on its own, as `ws` does.
 */
export function rawSocket(ws: WebSocket): Writable | undefined {
  const socket = (ws as unknown as { _socket?: Partial<Writable> })._socket;
  return socket && typeof socket.cork === 'function' && typeof socket.uncork === 'function'
    ? (socket as Writable)
    : undefined;
}

/**
 * Sets the size cap of `ws`'s frame parser for the messages that follow. `ws` takes one `maxPayload`
 * per server; the relay needs a small cap before authentication (so an unauthenticated client cannot
 * make it buffer a large message) and the frame cap after. The parser keeps the cap in a field that
 * is not part of `ws`'s API: its presence is checked here and a test fails if a `ws` update moves it.
 * Without it, the first-message size is still checked once the message has arrived.
 */
export function setParserLimit(ws: WebSocket, bytes: number): boolean {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload?: unknown } })._receiver;
  if (!receiver || typeof receiver._maxPayload !== 'number') return false;
  receiver._maxPayload = bytes;
  return true;
}
