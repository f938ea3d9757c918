import { ManualClock } from './testing/manual-clock.js';
import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('allows the burst at once, then the rate', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(clock, 1000, 4000);
    expect(bucket.take(4000)).toBe(0);
    expect(bucket.take(500)).toBe(500); // 500 bytes of debt at 1000/s: half a second
    clock.advance(499);
    expect(bucket.available).toBeCloseTo(-1, 5);
    clock.advance(1);
    expect(bucket.available).toBeCloseTo(0, 5);
  });

  it('never holds more than its burst, however long it waits', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(clock, 10, 20);
    clock.advance(3_600_000);
    expect(bucket.available).toBe(20);
    expect(bucket.idle).toBe(true);
    expect(bucket.tryTake(21)).toBe(false);
    expect(bucket.tryTake(20)).toBe(true);
    expect(bucket.idle).toBe(false);
  });

  it('ignores a clock that goes backwards', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(clock, 10, 20);
    bucket.take(20);
    clock.set(clock.now() - 10_000);
    expect(bucket.available).toBe(0);
  });
});
