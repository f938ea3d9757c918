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

  it('stays bounded: forgets refilled addresses, and fails closed when every slot is busy', () => {
    const clock = new ManualClock();
    const limiter = new AddressLimiter(clock, 1, 2, 3);
    for (const k of ['a', 'b', 'c']) limiter.allow(k);
    expect(limiter.allow('d')).toBe('table-full');
    expect(limiter.size).toBe(3);
    clock.advance(2000); // every bucket refilled: they can be forgotten
    expect(limiter.allow('d')).toBe('allowed');
    expect(limiter.size).toBe(1);
  });
});
