/**
 * The part of a `ws` WebSocket (the Node package, on both ends of a relay link) that writing and
 * closing use. Declared here by shape, so this file stays runtime-neutral and tests can pass a
 * fake; `ws`'s own WebSocket fits it as it is.
 */
export interface WsLike {
  readonly readyState: number;
  readonly OPEN: number;
  readonly CONNECTING: number;
  send(data: Uint8Array, options: { binary: boolean }, callback: (error?: Error) => void): void;
  close(code: number, reason: string): void;
  terminate(): void;
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

/**
 * Writes through a `ws` socket. A message offered to a socket that is not open is not written,
 * and its `done` still runs (on the next microtask, as a write callback would), so whoever counts
 * queued bytes by these callbacks never leaks a count.
 */
export function wsWriter(ws: WsLike): MessageWriter {
  return {
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
}

/**
 * A socket's end reported once: `ws` may report an error, an unexpected HTTP answer and the close
 * for the same end, and the owner's close handler must run exactly once, with the first reason.
 */
export function closeOnce(report: (code: number, reason: string) => void): (code: number, reason: string) => void {
  let closed = false;
  return (code, reason) => {
    if (closed) return;
    closed = true;
    report(code, reason);
  };
}
