import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { PeerPort, PortHandler } from './peer-port.js';

/** Where a socket's port is kept on the socket itself, so its listeners need no closure of their own. */
const PORT = Symbol('tether.relay.port');
type Carrier = WebSocket & { [PORT]: WsPort };

/** One options object for every send: `ws` copies it, never changes it. */
const BINARY = { binary: true } as const;

/**
 * A `ws` WebSocket as a PeerPort. The socket is `ws`'s own, upgraded by `ws-upgrade.ts`: nothing
 * else holds a request, a URL or a closure per socket, and a message reaches the relay as the
 * Buffer `ws` parsed, viewed and never copied. The listeners are shared by every socket (they
 * find their port through the socket): an idle connection costs what the socket and the relay's
 * own state cost, and no more.
 */
export class WsPort implements PeerPort {
  handler: PortHandler | null = null;
  /** The parser refused a message over the cap: the close is reported as 1009, whatever the socket says. */
  private tooLarge = false;
  private reported = false;
  /** The socket is corked until the end of this tick (see `send`). */
  private corked = false;

  constructor(
    private readonly ws: WebSocket,
    readonly source: string,
  ) {
    (ws as Carrier)[PORT] = this;
    ws.on('message', onMessage);
    ws.on('pong', onPong);
    ws.on('error', onError);
    ws.on('close', onClose);
  }

  send(bytes: Uint8Array, done: () => void): void {
    // A message offered to a socket that is not open is never written: its account is settled at once.
    if (this.ws.readyState !== this.ws.OPEN) return queueMicrotask(done);
    // Every message sent in one tick leaves in one write: the frames a read of another socket
    // brought (many, under load) cost one system call rather than one each. The socket is uncorked
    // before the event loop goes on, so a lone frame waits for nothing but the rest of the current
    // callback.
    if (!this.corked) {
      const socket = rawSocket(this.ws);
      if (socket) {
        socket.cork();
        this.corked = true;
        process.nextTick(uncork, this, socket);
      }
    }
    this.ws.send(bytes, BINARY, done);
  }

  /** @internal the end of the tick in which `send` corked the socket. */
  uncorked(): void {
    this.corked = false;
  }

  close(code: number, reason: string): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason);
  }

  terminate(): void {
    this.ws.terminate();
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

  /** Reported once, with the first reason. */
  ended(code: number, reason: string): void {
    if (this.reported) return;
    this.reported = true;
    this.handler?.portClosed(this.tooLarge ? 1009 : code, reason);
  }

  refusedTooLarge(): void {
    this.tooLarge = true;
  }
}

const portOf = (ws: WebSocket) => (ws as Carrier)[PORT];

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

function onMessage(this: WebSocket, data: Buffer, isBinary: boolean): void {
  const handler = portOf(this).handler;
  if (!isBinary) handler?.portMessage(new Uint8Array(0), false);
  else handler?.portMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), true);
}

function onPong(this: WebSocket): void {
  portOf(this).handler?.portPong();
}

function onError(this: WebSocket, error: Error & { code?: string }): void {
  if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') portOf(this).refusedTooLarge();
  this.terminate();
}

function onClose(this: WebSocket, code: number, reason: Buffer): void {
  portOf(this).ended(code, reason.toString());
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
