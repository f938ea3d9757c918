import type { Clock } from '@tether/shared-protocol';
import { TokenBucket } from './token-bucket.js';

/** Milliseconds between sweeps of a full table. */
const SWEEP_INTERVAL_MS = 1000;

export type LimitVerdict = 'allowed' | 'limited' | 'table-full';

/**
 * A token bucket per source address (connections, pair requests, calls). Bounded: it holds at most
 * `maxKeys` addresses; when full it first forgets addresses whose bucket has refilled (they are
 * indistinguishable from new ones), and if every one is still in use it refuses new addresses
 * (`table-full`) rather than forgetting one that is being limited: an address-spraying flood fails
 * closed.
 */
export class AddressLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  private lastSweep = -Infinity;

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys: number,
  ) {}

  allow(address: string): LimitVerdict {
    let bucket = this.buckets.get(address);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.sweep();
      if (this.buckets.size >= this.maxKeys) return 'table-full';
      bucket = new TokenBucket(this.clock, this.ratePerSecond, this.burst);
      this.buckets.set(address, bucket);
    }
    return bucket.tryTake() ? 'allowed' : 'limited';
  }

  get size(): number {
    return this.buckets.size;
  }

  /** At most once a second: a full table of busy addresses must not make every request a full scan. */
  private sweep(): void {
    const now = this.clock.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [address, bucket] of this.buckets) if (bucket.idle) this.buckets.delete(address);
  }
}
