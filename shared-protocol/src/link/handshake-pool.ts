import { addressRange } from '../address-range.js';

/**
 * Connections still in their handshake, bounded in all and per address range (an IPv6 /64 is one
 * range: see addressRange). A newcomer from a range that holds its share already is refused; a
 * newcomer when the pool is full evicts the oldest connection of the range holding the most, so
 * sockets left silent from a few addresses can never keep a real peer from elsewhere out. Each
 * handshake has a deadline of its own, and a real peer finishes within milliseconds, so an evicted
 * one is almost always an idle one.
 *
 * Used wherever a server waits for a peer's first words: the host's device and machine sockets,
 * and the relay's unauthenticated sockets. Asking whether a range is refused costs one lookup; an
 * eviction, one look at each range present.
 */
export class HandshakePool<T> {
  /** Each pending connection's range and arrival number; a Map keeps the oldest first. */
  private readonly pending = new Map<T, { range: string; seq: number }>();
  /** Each range's connections, oldest first. */
  private readonly byRange = new Map<string, Set<T>>();
  private nextSeq = 0;

  constructor(
    private readonly max: number,
    private readonly maxPerRange: number,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  /** Whether a newcomer from `address` would be refused: its range holds its share already. */
  refuses(address: string): boolean {
    return (this.byRange.get(addressRange(address))?.size ?? 0) >= this.maxPerRange;
  }

  /**
   * Takes `connection` (admitted by `refuses`). When the pool is full, first takes out the oldest
   * connection of the busiest range and answers it: the caller closes it.
   */
  add(connection: T, address: string): T | undefined {
    const evicted = this.pending.size >= this.max ? this.evict() : undefined;
    const range = addressRange(address);
    this.pending.set(connection, { range, seq: this.nextSeq++ });
    let inRange = this.byRange.get(range);
    if (!inRange) this.byRange.set(range, (inRange = new Set()));
    inRange.add(connection);
    return evicted;
  }

  /** The connection finished its handshake, or closed. */
  delete(connection: T): void {
    const entry = this.pending.get(connection);
    if (!entry) return;
    this.pending.delete(connection);
    const inRange = this.byRange.get(entry.range)!;
    inRange.delete(connection);
    if (inRange.size === 0) this.byRange.delete(entry.range);
  }

  connections(): T[] {
    return [...this.pending.keys()];
  }

  /** Of the ranges holding the most, the one whose oldest connection came first: that one goes. */
  private evict(): T | undefined {
    let chosen: T | undefined;
    let most = 0;
    let oldest = Infinity;
    for (const inRange of this.byRange.values()) {
      const first = inRange.values().next().value as T;
      const seq = this.pending.get(first)!.seq;
      if (inRange.size > most || (inRange.size === most && seq < oldest)) {
        chosen = first;
        most = inRange.size;
        oldest = seq;
      }
    }
    if (chosen !== undefined) this.delete(chosen);
    return chosen;
  }
}
