import { describe, expect, it } from 'vitest';
import { AddressLimiter } from './address-limiter.js';
import { ManualClock } from './testing/manual-clock.js';

describe('AddressLimiter', () => {
  it('limits each address on its own: the burst at once, then the rate', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, { perSecond: 1, burst: 2, maxRanges: 100 });
    expect(['a', 'a', 'a', 'b'].map((k) => limiter.allow(k))).toEqual([true, true, false, true]);
    clock.advance(1000);
    expect(limiter.allow('a')).toBe(true);
    expect(limiter.allow('a')).toBe(false);
  });

  it('gives `burst` a span, and all of it back once the span has passed (the host’s tries a minute)', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, { burst: 3, perSecond: 3 / 60 });
    expect([1, 2, 3, 4].map(() => limiter.allow('192.168.1.20'))).toEqual([true, true, true, false]);
    clock.advance(60_001);
    expect([1, 2, 3, 4].map(() => limiter.allow('192.168.1.20'))).toEqual([true, true, true, false]);
  });

  it('counts an IPv6 /64 as one address: a flood sprayed across one /64 shares one budget', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, { perSecond: 1, burst: 3, maxRanges: 100 });
    const sprayed = Array.from({ length: 50 }, (_, i) => limiter.allow(`2001:db8:1:2::${(i + 1).toString(16)}`));
    expect(sprayed.filter(Boolean)).toHaveLength(3);
    expect(limiter.size).toBe(1);
    // Another /64, and an IPv4 address, are not touched by it.
    expect(limiter.allow('2001:db8:1:3::1')).toBe(true);
    expect(limiter.allow('198.51.100.7')).toBe(true);
  });

  it('counts NAT64 clients apart, each as the IPv4 address it embeds', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, { perSecond: 0.001, burst: 1 });
    const translated = Array.from({ length: 20 }, (_, i) => limiter.allow(`64:ff9b::198.51.100.${i + 1}`));
    expect(translated.every(Boolean)).toBe(true);
    expect(limiter.allow('198.51.100.1')).toBe(false);
  });

  it('a flood from one /64 that fills the table never shuts out others', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, { perSecond: 1, burst: 2, maxRanges: 4 });
    for (let i = 0; i < 10_000; i++) limiter.allow(`2001:db8:aa:bb:${(i % 65_536).toString(16)}::1`);
    expect(limiter.size).toBe(1);
    expect(limiter.allow('203.0.113.5')).toBe(true);
    expect(limiter.allow('2001:db8:cc::9')).toBe(true);
  });

  it('when full of busy addresses, forgets the one seen longest ago rather than refuse a newcomer', () => {
    const clock = new ManualClock();
    let forgotten = 0;
    const limiter = new AddressLimiter(clock, { perSecond: 1, burst: 2, maxRanges: 3, onForget: () => forgotten++ });
    // Every slot busy: each address has spent its burst and is being limited.
    for (const k of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      limiter.allow(k);
      limiter.allow(k);
      expect(limiter.allow(k)).toBe(false);
    }
    clock.advance(10); // no bucket has refilled
    limiter.allow('10.0.0.1'); // seen again: now the most recent
    expect(limiter.allow('10.0.0.4')).toBe(true);
    expect(limiter.size).toBe(3);
    expect(forgotten).toBe(1);
    // The one seen longest ago (10.0.0.2) was forgotten: it starts again with a full burst;
    // 10.0.0.1, seen just now, is still limited.
    expect(limiter.allow('10.0.0.1')).toBe(false);
    expect(limiter.allow('10.0.0.2')).toBe(true);
  });

  it('stays bounded whatever the spread of addresses, 10,000 ranges unless told', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, { perSecond: 1, burst: 2, maxRanges: 100 });
    for (let i = 0; i < 5000; i++) {
      expect(limiter.allow(`2001:db8:${(i >> 8).toString(16)}:${(i & 0xff).toString(16)}::1`)).toBe(true);
      expect(limiter.size).toBeLessThanOrEqual(100);
    }
    const unbounded = new AddressLimiter(clock, { perSecond: 1, burst: 2 });
    for (let i = 0; i < 12_000; i++) unbounded.allow(`10.${i >> 16}.${(i >> 8) & 0xff}.${i & 0xff}`);
    expect(unbounded.size).toBe(10_000);
  });
});
