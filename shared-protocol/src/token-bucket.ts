import type { Clock } from './clock.js';

/**
 * A token bucket: `ratePerSecond` tokens a second, holding at most `burst`. `take` always succeeds
 * and may leave the bucket in debt; it answers how many milliseconds until the debt is repaid, which
 * is how long a reader should pause. Debt is what lets a whole message be accounted for after it has
 * already arrived, without buffering it. Time comes from the injected clock.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes `n` tokens; returns the milliseconds until the bucket is out of debt (0 if it is not). */
  take(n: number): number {
    this.refill();
    this.tokens -= n;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.ratePerSecond) * 1000);
  }

  /** Takes one token if there is one; false (taking nothing) if not. */
  tryTake(n = 1): boolean {
    this.refill();
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }

  /** True when the bucket is full again: a limiter may forget it. */
  get idle(): boolean {
    this.refill();
    return this.tokens >= this.burst;
  }

  get available(): number {
    this.refill();
    return this.tokens;
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.ratePerSecond) / 1000);
  }
}
