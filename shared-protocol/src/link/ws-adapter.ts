/**
 * A `ws` WebSocket (the Node package) as a link's socket, written once for the host's gateway and
 * relay link, the machine agent and the relay: binary messages only, each delivered as a
 * Uint8Array view of what `ws` parsed (copied only when `ws` hands over fragments), writes with a
 * callback once they have left the process, and the socket's end reported exactly once. The socket
 * is declared here by shape, so this file stays runtime-neutral (no Buffer API) and tests can pass a
 * fake; `ws`'s own WebSocket fits it as it is.
 */

/** What `ws` hands a message listener: a Buffer (a Uint8Array), an ArrayBuffer, or fragments. */
export type WsData = Uint8Array | ArrayBuffer | readonly Uint8Array[];

/** The part of a `ws` WebSocket that writing and closing use. */
export interface WsLike {
  readonly readyState: number;
  readonly OPEN: number;
  readonly CONNECTING: number;
  send(data: Uint8Array, options: { binary: boolean }, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
}

/** The listeners the adapter registers, as `ws` calls them (`this` is the socket). */
export interface WsSocket extends WsLike {
  on(event: 'message', listener: (this: WsSocket, data: WsData, isBinary: boolean) => void): unknown;
  on(event: 'error', listener: (this: WsSocket, error: Error) => void): unknown;
  on(event: 'close', listener: (this: WsSocket, code: number, reason: { toString(): string }) => void): unknown;
}

/** Binary messages out, with a callback once each has left the process, and the two ways to end. */
export interface MessageWriter {
  /** Writes one message; `done` runs once it has been written out, or at once if it never will be. */
  send(bytes: Uint8Array, done: () => void): void;
  /** Starts a clean close (nothing to do once the socket is closing or closed). */
  close(code: number, reason: string): void;
  /** Destroys the socket at once (a dead peer does not answer a close). */
  terminate(): void;
}

/** One options object for every send: `ws` copies it, never changes it. */
const BINARY = { binary: true } as const;

/** Where a socket's adapter is kept on the socket itself, so the listeners need no closure per socket. */
const ADAPTER = Symbol('tether.ws.adapter');
type Carrier = WsSocket & { [ADAPTER]: WsAdapter };

/**
 * The adapter; each end says what a text message, an error and the end mean to it. The listeners
 * are shared by every socket (they find their adapter through the socket), so an idle connection
 * costs the socket, this object and nothing more.
 */
export abstract class WsAdapter<S extends WsSocket = WsSocket> implements MessageWriter {
  private reported = false;

  constructor(protected readonly ws: S) {
    (ws as unknown as Carrier)[ADAPTER] = this;
    ws.on('message', onMessage);
    ws.on('error', onError);
    ws.on('close', onClose);
  }

  /** A binary message. */
  protected abstract received(bytes: Uint8Array): void;
  /** A text message: not part of the protocol, and each end refuses it in its own words. */
  protected abstract refusedText(): void;
  /** The socket's end, reported once, with the first reason. */
  protected abstract closed(code: number, reason: string): void;
  /** A socket error; the socket is terminated right after. */
  protected failed(_error: Error): void {}

  /**
   * Writes one message. Offered to a socket that is not open, it is never written and `done` still
   * runs (on the next microtask, as a write callback would), so whoever counts queued bytes by these
   * callbacks never leaks a count.
   */
  send(bytes: Uint8Array, done?: () => void): void {
    if (this.ws.readyState !== this.ws.OPEN) {
      if (done) queueMicrotask(done);
      return;
    }
    this.ws.send(bytes, BINARY, done);
  }

  close(code?: number, reason?: string): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason);
  }

  terminate(): void {
    this.ws.terminate();
  }

  /**
   * Reports the end, once: `ws` may report an error, an unexpected HTTP answer and the close for the
   * same end, and the owner hears only the first.
   */
  ended(code: number, reason: string): void {
    if (this.reported) return;
    this.reported = true;
    this.closed(code, reason);
  }

  /** The adapter of a socket, for listeners an end adds without a closure of their own. */
  static of(ws: WsSocket): WsAdapter {
    return (ws as Carrier)[ADAPTER];
  }

  /** @internal the shared listeners' way in. */
  static dispatch(ws: WsSocket, data: WsData, isBinary: boolean): void {
    const adapter = (ws as Carrier)[ADAPTER];
    if (isBinary) adapter.received(wsBytes(data));
    else adapter.refusedText();
  }

  /** @internal */
  static fail(ws: WsSocket, error: Error): void {
    (ws as Carrier)[ADAPTER].failed(error);
    ws.terminate();
  }
}

/** What each end does with its socket's messages, errors and end. */
export interface WsHooks {
  message(bytes: Uint8Array): void;
  text(): void;
  error?(error: Error): void;
  closed(code: number, reason: string): void;
}

class HookedAdapter extends WsAdapter {
  constructor(
    ws: WsSocket,
    private readonly hooks: WsHooks,
  ) {
    super(ws);
  }

  protected received(bytes: Uint8Array): void {
    this.hooks.message(bytes);
  }

  protected refusedText(): void {
    this.hooks.text();
  }

  protected override failed(error: Error): void {
    this.hooks.error?.(error);
  }

  protected closed(code: number, reason: string): void {
    this.hooks.closed(code, reason);
  }
}

/** Adapts `ws` for an end that says what each event means to it through `hooks`. */
export function wsAdapter(ws: WsSocket, hooks: WsHooks): WsAdapter {
  return new HookedAdapter(ws, hooks);
}

/** A message's bytes as a Uint8Array: a view of a Buffer or an ArrayBuffer (no copy), fragments joined. */
export function wsBytes(data: WsData): Uint8Array {
  if (data instanceof Uint8Array) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  const joined = new Uint8Array(data.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of data) {
    joined.set(part, at);
    at += part.byteLength;
  }
  return joined;
}

function onMessage(this: WsSocket, data: WsData, isBinary: boolean): void {
  WsAdapter.dispatch(this, data, isBinary);
}

function onError(this: WsSocket, error: Error): void {
  WsAdapter.fail(this, error);
}

function onClose(this: WsSocket, code: number, reason: { toString(): string }): void {
  (this as Carrier)[ADAPTER].ended(code, reason.toString());
}
