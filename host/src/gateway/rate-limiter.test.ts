import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { RateLimiter, addressRange } from './rate-limiter.js';

describe('the rate limiter', () => {
  it('allows `limit` events per window for each key', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, 3, 60_000);
    expect([1, 2, 3, 4].map(() => limiter.allow('192.168.1.20'))).toEqual([true, true, true, false]);
    clock.advance(60_001);
    expect(limiter.allow('192.168.1.20')).toBe(true);
  });

  it('counts a whole address range as one: a sprayer of addresses gets one budget', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, 3, 60_000);
    const sprayed = Array.from({ length: 10 }, (_, i) => limiter.allow(`2001:db8:1:2::${i.toString(16)}`));
    expect(sprayed.filter(Boolean)).toHaveLength(3);
    expect(limiter.allow('2001:db8:1:3::1')).toBe(true);
  });

  it('never locks everyone out when full of other ranges: the stalest range is forgotten instead', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, 3, 60_000, 100);
    for (let i = 0; i < 1000; i++) limiter.allow(`2001:db8:${i.toString(16)}::1`);
    expect(limiter.allow('192.168.1.20')).toBe(true);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });

  it('names address ranges: IPv4 alone, IPv6 by its /64, mapped IPv4 as IPv4', () => {
    expect(addressRange('192.168.1.20')).toBe('192.168.1.20');
    expect(addressRange('::ffff:192.168.1.20')).toBe('192.168.1.20');
    expect(addressRange('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressRange('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressRange('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
