import type { Clock } from '@tether/shared-protocol';

/**
 * At most `limit` events per `windowMs` for each key (a source address), counted in a sliding
 * window. Bounded: it forgets keys whose window has passed, and it holds at most `maxKeys`
 * keys — when full, new keys are refused, which fails closed against an address-spraying flood.
 */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  allow(key: string): boolean {
    const now = this.clock.now();
    const since = now - this.windowMs;
    let times = this.hits.get(key);
    if (!times) {
      if (this.hits.size >= this.maxKeys) this.sweep(since);
      if (this.hits.size >= this.maxKeys) return false;
      times = [];
      this.hits.set(key, times);
    }
    while (times.length > 0 && times[0]! <= since) times.shift();
    if (times.length >= this.limit) return false;
    times.push(now);
    return true;
  }

  private sweep(since: number): void {
    for (const [key, times] of this.hits) if ((times[times.length - 1] ?? 0) <= since) this.hits.delete(key);
  }
}
