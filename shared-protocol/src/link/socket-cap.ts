import { addressRange } from '../address-range.js';

/**
 * The part of a Node socket (`net.Socket`, `tls.TLSSocket`) the cap uses. Declared here by shape,
 * so this file stays runtime-neutral and tests can pass a fake; Node's sockets fit it as they are.
 */
export interface CappedSocket {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  setTimeout(ms: number, onTimeout?: () => void): unknown;
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

export interface SocketCapOptions {
  /** Sockets one address range (an IPv4 address, an IPv6 /64: addressRange) may hold at once. */
  perRange: number;
  /** Milliseconds a new socket may stay silent before its first request starts. */
  firstByteMs: number;
  /** Peers never capped: a trusted proxy, whose sockets carry many clients. */
  uncapped?: (address: string) => boolean;
  /** A socket was closed at once: its range held its share. */
  onRefused?: () => void;
  /** A socket was closed for saying nothing within `firstByteMs`. */
  onSilent?: () => void;
}

/**
 * A listener's defence against crowds of cheap sockets, the same on the host and the relay: each
 * address range may hold at most `perRange` sockets (one more is closed at once, before anything
 * is read), and a socket that has not started a request within `firstByteMs` is closed. Node's own
 * deadline for a request's headers is checked only every so often, so without this a socket that
 * never says a word lives about half a minute, and a few addresses could hold every descriptor.
 *
 * The listener calls `admit` for each new socket, `awaitFirstRequest` once it can carry a request
 * (at once, or after its TLS handshake), `started` when a request or an upgrade arrives (the
 * server's own timeouts apply from there), and `release` when a socket is counted elsewhere from
 * then on (the relay's WebSockets). A socket is known by its peer's address and port, which a TLS
 * socket shares with the TCP socket under it.
 */
export class SocketCap {
  /** The range each counted socket is counted under, by `address|port`. */
  private readonly counted = new Map<string, string>();
  private readonly perRange = new Map<string, number>();
  /** Sockets whose first request has not started yet. */
  private readonly silent = new WeakSet<CappedSocket>();

  constructor(private readonly options: SocketCapOptions) {}

  /** Takes a new socket, counted under its range; false (and the socket destroyed) past the cap. */
  admit(socket: CappedSocket): boolean {
    const address = socket.remoteAddress ?? 'unknown';
    if (this.options.uncapped?.(address)) return true;
    const range = addressRange(address);
    const held = this.perRange.get(range) ?? 0;
    if (held >= this.options.perRange) {
      this.options.onRefused?.();
      socket.destroy();
      return false;
    }
    const key = keyOf(socket);
    this.perRange.set(range, held + 1);
    this.counted.set(key, range);
    socket.once('close', () => this.uncount(key));
    return true;
  }

  /** Starts the socket's first-byte deadline: silent until then, it is destroyed. */
  awaitFirstRequest(socket: CappedSocket): void {
    this.silent.add(socket);
    socket.setTimeout(this.options.firstByteMs, () => {
      // Only while still silent: a later idle timeout (Node's keep-alive) is the server's own.
      if (!this.silent.delete(socket)) return;
      this.options.onSilent?.();
      socket.destroy();
    });
  }

  /** A request or an upgrade started: the first-byte deadline is lifted. */
  started(socket: CappedSocket): void {
    if (this.silent.delete(socket)) socket.setTimeout(0);
  }

  /** Counted no more: the socket is someone else's to bound from now on. */
  release(socket: CappedSocket): void {
    this.started(socket);
    this.uncount(keyOf(socket));
  }

  /** Sockets counted now, in all. */
  get size(): number {
    return this.counted.size;
  }

  private uncount(key: string): void {
    const range = this.counted.get(key);
    if (range === undefined) return;
    this.counted.delete(key);
    const left = (this.perRange.get(range) ?? 1) - 1;
    if (left > 0) this.perRange.set(range, left);
    else this.perRange.delete(range);
  }
}

const keyOf = (socket: CappedSocket) => `${socket.remoteAddress ?? 'unknown'}|${socket.remotePort ?? 0}`;
