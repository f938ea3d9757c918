import { HandshakePool } from '@tether/shared-protocol';

/** A connection that has not yet authenticated, as the census holds it: it can be told to go. */
export interface PendingConn {
  /** The pool was full and this was the oldest of the busiest range: close it (it may retry). */
  evicted(): void;
}

/**
 * Counts of a node's connections, kept by each connection as it moves through its life, so that
 * admission checks (node full, too many unauthenticated from one range) cost nothing per
 * connection. The unauthenticated ones are a HandshakePool, as on the host: a range may hold only
 * its share, and when the pool is full a newcomer takes the place of the oldest connection of the
 * range holding the most, so silent sockets from many ranges can never keep a real host or device
 * out (each has the auth deadline to speak, and a real one speaks within a round trip).
 */
export class Census {
  /** Every open socket, authenticated or not. */
  open = 0;
  private readonly waiting: HandshakePool<PendingConn>;

  constructor(maxPending: number, maxPendingPerRange: number) {
    this.waiting = new HandshakePool(maxPending, maxPendingPerRange);
  }

  /** Sockets that have not yet authenticated. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Whether a new socket from `source` would be refused: its range holds its share of the pool. */
  refuses(source: string): boolean {
    return this.waiting.refuses(source);
  }

  opened(conn: PendingConn, source: string): void {
    this.open++;
    this.waiting.add(conn, source)?.evicted();
  }

  authenticated(conn: PendingConn): void {
    this.waiting.delete(conn);
  }

  closed(conn: PendingConn): void {
    this.open--;
    this.waiting.delete(conn);
  }
}
