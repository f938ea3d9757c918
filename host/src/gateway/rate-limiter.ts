import type { Clock } from '@tether/shared-protocol';
import { addressRange } from '@tether/shared-protocol';

/** Ranges a limiter remembers at most: beyond it, the range seen longest ago is forgotten. */
const DEFAULT_MAX_RANGES = 10_000;

/** The range an address counts under: an IPv4 address, an IPv6 /64 (one copy, shared with the relay). */
export { addressRange };

/**
 * At most `limit` events per `windowMs` for each address range, in a sliding window. Bounded: it
 * holds at most `maxRanges` ranges, and when full it forgets the one seen longest ago rather than
 * refuse newcomers, so a flood from many ranges can weaken the limit for a moment but never lock
 * everyone out.
 */
export class RateLimiter {
  /** Hit times per range; a Map keeps the range touched longest ago first. */
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxRanges = DEFAULT_MAX_RANGES,
  ) {}

  allow(address: string): boolean {
    const key = addressRange(address);
    const now = this.clock.now();
    const since = now - this.windowMs;
    const times = this.hits.get(key) ?? [];
    this.hits.delete(key);
    while (times.length > 0 && times[0]! <= since) times.shift();
    const allowed = times.length < this.limit;
    if (allowed) times.push(now);
    this.hits.set(key, times);
    while (this.hits.size > this.maxRanges) {
      const stalest = this.hits.keys().next().value;
      if (stalest === undefined) break;
      this.hits.delete(stalest);
    }
    return allowed;
  }

  get size(): number {
    return this.hits.size;
  }
}
