/**
 * The socket under one relay connection, as the relay needs it: a WebSocket (`ws-port.ts`) in
 * production, an in-memory fake in unit tests. Binary messages in and out, a write callback for
 * accounting, pause and resume for backpressure, protocol pings.
 */
export interface PeerPort {
  /** The client's address as the relay reports it to hosts and uses for rate limits. */
  readonly source: string;
  /** Writes one message; `done` runs once it has left the process, or the socket failed. */
  send(bytes: Uint8Array, done: () => void): void;
  /** Starts a clean close (the close frame goes after what is already queued). */
  close(code: number, reason: string): void;
  /** Destroys the socket at once. */
  terminate(): void;
  /** Stops reading: TCP pushes back on the sender. */
  pause(): void;
  resume(): void;
  /** A WebSocket protocol ping; the peer's pong arrives through `onPong`. */
  ping(): void;
  /** Caps the size of the messages the socket will accept from now on. */
  setMaxMessage(bytes: number): void;
  /** Who hears the socket's messages, pongs and end (one object, so a socket costs no closures). */
  handler: PortHandler | null;
}

/** What a port tells its owner. */
export interface PortHandler {
  portMessage(bytes: Uint8Array, binary: boolean): void;
  portPong(): void;
  /** Called once, when the socket has closed for any reason. */
  portClosed(code: number, reason: string): void;
}
