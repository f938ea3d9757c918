import { describe, expect, it } from 'vitest';
import { parseFuzzSeed } from './fuzz-seed.js';

describe('fuzz seed', () => {
  it('--seed N gives the same choices every time', () => {
    const a = parseFuzzSeed(['--inputs', '5', '--seed', '42']);
    const b = parseFuzzSeed(['--seed', '42']);
    if (!a.ok || !b.ok) throw new Error('refused');
    expect(a.seed).toBe(42);
    expect(Array.from({ length: 5 }, a.random)).toEqual(Array.from({ length: 5 }, b.random));
  });

  it('draws a fresh seed without one, and refuses a seed that is not a 32-bit whole number', () => {
    const fresh = parseFuzzSeed([], () => 0.5);
    expect(fresh.ok && fresh.seed).toBe(2 ** 31);
    for (const bad of ['x', '-1', '1.5', String(2 ** 32), '']) {
      expect(parseFuzzSeed(['--seed', bad]).ok, bad).toBe(false);
    }
  });
});
