import { addressRange } from '../address-range.js';

/**
 * Connections still in their handshake, bounded in all and per address range (an IPv6 /64 is one
 * range: see addressRange). A newcomer from a range that holds its share already is refused; a
 * newcomer when the pool is full evicts the oldest connection of the range holding the most, so
 * sockets left silent from a few addresses can never keep a real peer from elsewhere out. Each
 * handshake has a deadline of its own, and a real peer finishes within milliseconds, so an evicted
 * one is almost always an idle one.
 */
export class HandshakePool<T> {
  /** Pending connections with their ranges; a Map keeps the oldest first. */
  private readonly pending = new Map<T, string>();

  constructor(
    private readonly max: number,
    private readonly maxPerRange: number,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  /** Whether a newcomer from `address` would be refused: its range holds its share already. */
  refuses(address: string): boolean {
    return this.count(addressRange(address)) >= this.maxPerRange;
  }

  /**
   * Takes `connection` (admitted by `refuses`). When the pool is full, first takes out the oldest
   * connection of the busiest range and answers it: the caller closes it.
   */
  add(connection: T, address: string): T | undefined {
    const evicted = this.pending.size >= this.max ? this.evict() : undefined;
    this.pending.set(connection, addressRange(address));
    return evicted;
  }

  /** The connection finished its handshake, or closed. */
  delete(connection: T): void {
    this.pending.delete(connection);
  }

  connections(): T[] {
    return [...this.pending.keys()];
  }

  private evict(): T | undefined {
    const perRange = new Map<string, number>();
    for (const range of this.pending.values()) perRange.set(range, (perRange.get(range) ?? 0) + 1);
    const most = Math.max(...perRange.values());
    // Oldest first: the first connection of a range holding the most is the one to go.
    for (const [connection, range] of this.pending) {
      if (perRange.get(range) !== most) continue;
      this.pending.delete(connection);
      return connection;
    }
    return undefined;
  }

  private count(range: string): number {
    let n = 0;
    for (const r of this.pending.values()) if (r === range) n++;
    return n;
  }
}
