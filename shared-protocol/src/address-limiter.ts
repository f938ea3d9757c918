import { addressRange } from './address-range.js';
import type { Clock } from './clock.js';
import { TokenBucket } from './token-bucket.js';

export interface AddressLimiterOptions {
  /** Events one range may have at once. */
  burst: number;
  /** Events a second a range gets back after its burst. */
  perSecond: number;
  /** Ranges remembered at most (10,000 unless given): past it the range seen longest ago goes. */
  maxRanges?: number;
  /** Called each time a range is forgotten to make room (the relay counts them). */
  onForget?: () => void;
}

/** Ranges a limiter remembers unless told otherwise: a few hundred KiB. */
const DEFAULT_MAX_RANGES = 10_000;

/**
 * The per-address limit of the host and the relay alike (pair requests, new connections, calls):
 * a token bucket per address range, so an IPv6 /64 is one client (whoever holds one address of it
 * can take any other), a NAT64 client is its IPv4 address, and an IPv4 address is itself (see
 * addressRange). `burst` at once, then `perSecond`.
 *
 * Bounded: it holds at most `maxRanges` ranges, and when full it forgets the range seen longest ago
 * to make room. It never refuses a newcomer for want of room: a flood from many ranges can at worst
 * weaken the limit of the ranges it pushes out (they start again with a full burst), while a table
 * that refused new ranges when full would shut everyone else out. A Map keeps its keys in insertion
 * order, so moving a range to the end on every sight keeps the one seen longest ago first: O(1) a
 * call.
 */
export class AddressLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly maxRanges: number;

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly options: AddressLimiterOptions,
  ) {
    this.maxRanges = Math.max(1, options.maxRanges ?? DEFAULT_MAX_RANGES);
  }

  /** Counts one event from `address`: false when its range is over its limit. */
  allow(address: string): boolean {
    const key = addressRange(address);
    let bucket = this.buckets.get(key);
    if (bucket) this.buckets.delete(key);
    else {
      bucket = new TokenBucket(this.clock, this.options.perSecond, this.options.burst);
      while (this.buckets.size >= this.maxRanges) {
        const stalest = this.buckets.keys().next().value;
        if (stalest === undefined) break;
        this.buckets.delete(stalest);
        this.options.onForget?.();
      }
    }
    this.buckets.set(key, bucket);
    return bucket.tryTake();
  }

  /** Ranges remembered now. */
  get size(): number {
    return this.buckets.size;
  }
}
