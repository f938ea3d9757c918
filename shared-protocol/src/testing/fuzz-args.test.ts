import { describe, expect, it } from 'vitest';
import { parseFuzzArgs } from './fuzz-args.js';

describe('fuzz args', () => {
  it('reads the budget and the seed together', () => {
    const args = parseFuzzArgs(['--inputs', '3', '--seed', '7'], 20, () => undefined);
    if (!args.ok) throw new Error(args.message);
    expect(args.seed).toBe(7);
    for (args.budget.tried = 0; args.budget.more(); args.budget.tried++);
    expect(args.budget.tried).toBe(3);
  });

  it('names a mistake in the budget before one in the seed', () => {
    expect(parseFuzzArgs(['--inputs', 'x', '--seed', 'y'], 20, () => undefined)).toEqual({
      ok: false,
      message: '--inputs takes a positive whole number',
    });
    expect(parseFuzzArgs(['--inputs', '3', '--seed', 'y'], 20, () => undefined)).toEqual({
      ok: false,
      message: '--seed takes a whole number below 2^32',
    });
  });
});
