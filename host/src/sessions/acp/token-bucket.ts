import type { Clock } from '@tether/shared-protocol';

/**
 * A token bucket on a clock: holds up to `burst` tokens, refilled at `perSecond`; each `take` spends
 * one, and is refused while less than one is left.
 */
export class TokenBucket {
  private tokens: number;
  private filledAt: number;

  constructor(
    private readonly clock: Clock,
    private readonly burst: number,
    private readonly perSecond: number,
  ) {
    this.tokens = burst;
    this.filledAt = clock.now();
  }

  /** Spends one token; false when the bucket holds less than one. */
  take(): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.filledAt) / 1000) * this.perSecond);
    this.filledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
