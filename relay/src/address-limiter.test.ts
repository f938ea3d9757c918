import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { AddressLimiter } from './address-limiter.js';

describe('AddressLimiter', () => {
  it('limits each address on its own', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, 1, 2, 100);
    expect(['a', 'a', 'a', 'b'].map((k) => limiter.allow(k))).toEqual(['allowed', 'allowed', 'limited', 'allowed']);
    clock.advance(1000);
    expect(limiter.allow('a')).toBe('allowed');
    expect(limiter.allow('a')).toBe('limited');
  });

  it('counts an IPv6 /64 as one address: a flood sprayed across one /64 shares one budget', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, 1, 3, 100);
    const sprayed = Array.from({ length: 50 }, (_, i) => limiter.allow(`2001:db8:1:2::${(i + 1).toString(16)}`));
    expect(sprayed.filter((v) => v === 'allowed')).toHaveLength(3);
    expect(limiter.size).toBe(1);
    // Another /64, and an IPv4 address, are not touched by it.
    expect(limiter.allow('2001:db8:1:3::1')).toBe('allowed');
    expect(limiter.allow('198.51.100.7')).toBe('allowed');
  });

  it('a flood from one /64 that fills the table never shuts out others', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, 1, 2, 4);
    for (let i = 0; i < 10_000; i++) limiter.allow(`2001:db8:aa:bb:${(i % 65_536).toString(16)}::1`);
    expect(limiter.size).toBe(1);
    expect(limiter.allow('203.0.113.5')).toBe('allowed');
    expect(limiter.allow('2001:db8:cc::9')).toBe('allowed');
  });

  it('when full of busy addresses, forgets the one seen longest ago rather than refuse a newcomer', () => {
    const clock = new ManualClock();
    const evicted: number[] = [];
    const limiter = new AddressLimiter(clock, 1, 2, 3, () => evicted.push(1));
    // Every slot busy: each address has spent its burst and is being limited.
    for (const k of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      limiter.allow(k);
      limiter.allow(k);
      expect(limiter.allow(k)).toBe('limited');
    }
    clock.advance(10); // no bucket has refilled
    limiter.allow('10.0.0.1'); // seen again: now the most recent
    expect(limiter.allow('10.0.0.4')).toBe('allowed');
    expect(limiter.size).toBe(3);
    expect(evicted).toHaveLength(1);
    // The one seen longest ago (10.0.0.2) was forgotten: it starts again with a full burst;
    // 10.0.0.1, seen just now, is still limited.
    expect(limiter.allow('10.0.0.1')).toBe('limited');
    expect(limiter.allow('10.0.0.2')).toBe('allowed');
  });

  it('stays bounded whatever the spread of addresses', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, 1, 2, 100);
    for (let i = 0; i < 5000; i++) {
      expect(limiter.allow(`2001:db8:${(i >> 8).toString(16)}:${(i & 0xff).toString(16)}::1`)).toBe('allowed');
      expect(limiter.size).toBeLessThanOrEqual(100);
    }
  });
});
