import type { Clock } from '@tether/shared-protocol';
import { addressRange } from '@tether/shared-protocol';
import { TokenBucket } from './token-bucket.js';

export type LimitVerdict = 'allowed' | 'limited';

/**
 * A token bucket per source address range (connections, pair requests, calls): an IPv4 address,
 * or an IPv6 /64 (`addressRange`), since one client can take any address of its /64 and must not
 * get a budget per address. Bounded: it holds at most `maxKeys` ranges, and when full it forgets
 * the range seen longest ago to make room. It never refuses a newcomer for want of room: a flood
 * from many ranges can at worst weaken the limit of the ranges it pushes out (they start again
 * with a full burst), while a table that refused new ranges when full would shut everyone else
 * out. A Map keeps its keys in insertion order, so moving a range to the end on every sight keeps
 * the one seen longest ago first: O(1) per call.
 */
export class AddressLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys: number,
    /** Called each time a range is forgotten to make room (counted in the metrics). */
    private readonly onEvict: () => void = () => undefined,
  ) {}

  allow(address: string): LimitVerdict {
    const key = addressRange(address);
    let bucket = this.buckets.get(key);
    if (bucket) this.buckets.delete(key);
    else {
      bucket = new TokenBucket(this.clock, this.ratePerSecond, this.burst);
      while (this.buckets.size >= Math.max(1, this.maxKeys)) {
        const stalest = this.buckets.keys().next().value;
        if (stalest === undefined) break;
        this.buckets.delete(stalest);
        this.onEvict();
      }
    }
    this.buckets.set(key, bucket);
    return bucket.tryTake() ? 'allowed' : 'limited';
  }

  get size(): number {
    return this.buckets.size;
  }
}
