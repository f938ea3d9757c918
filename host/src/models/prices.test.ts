import { describe, expect, it } from 'vitest';
import { decodePriceConfig } from './price-config.js';
import { PRICE_TABLE_AS_OF, costOf, priceBook, undated } from './prices.js';

describe('the price table', () => {
  it('prices a model by its name or its dated snapshot, and nothing else', () => {
    const book = priceBook();
    expect(book.priceOf('claude-sonnet-4-5')).toEqual({
      inputPerMTok: 3,
      outputPerMTok: 15,
      asOf: PRICE_TABLE_AS_OF,
      source: 'table',
    });
    expect(book.priceOf('claude-sonnet-4-5-20250929')?.inputPerMTok).toBe(3);
    expect(book.priceOf('gpt-4.1-2025-04-14')?.outputPerMTok).toBe(8);
    // A name that merely starts like a priced one is not priced as it.
    expect(book.priceOf('gpt-5-pro')).toBeUndefined();
    expect(book.priceOf('claude-sonnet-5-5')).toBeUndefined();
    expect(undated('claude-opus-4-1-20250805')).toBe('claude-opus-4-1');
    expect(undated('llama3.1:8b')).toBe('llama3.1:8b');
  });

  it('costs a call at the price', () => {
    expect(costOf({ inputPerMTok: 3, outputPerMTok: 15, asOf: 'x', source: 'table' }, 1_000_000, 100_000)).toBeCloseTo(
      4.5,
    );
  });

  it('takes prices.json over the table, null meaning no known price', () => {
    const decoded = decodePriceConfig(
      JSON.stringify({
        asOf: '2026-12-01',
        models: { 'claude-sonnet-5-5': { inputPerMTok: 3, outputPerMTok: 15 }, 'gpt-4.1': null },
      }),
    );
    if (!decoded.ok) throw new Error(decoded.error.message);
    const book = priceBook(decoded.value);
    expect(book.priceOf('claude-sonnet-5-5')).toEqual({
      inputPerMTok: 3,
      outputPerMTok: 15,
      asOf: '2026-12-01',
      source: 'config',
    });
    expect(book.priceOf('gpt-4.1')).toBeUndefined();
    expect(book.priceOf('gpt-4o')?.source).toBe('table');
  });

  it('refuses a file it does not understand, naming what is wrong', () => {
    const problem = (value: unknown) => {
      const decoded = decodePriceConfig(typeof value === 'string' ? value : JSON.stringify(value));
      return decoded.ok ? 'accepted' : decoded.error.message;
    };
    expect(problem('{')).toMatch(/invalid JSON/);
    expect(problem({ models: {} })).toMatch(/asOf/);
    expect(problem({ asOf: 'yesterday', models: {} })).toMatch(/YYYY-MM-DD/);
    expect(problem({ asOf: '2026-12-01', models: { x: { inputPerMTok: -1, outputPerMTok: 1 } } })).toMatch(/negative/);
    expect(problem({ asOf: '2026-12-01', models: { x: { inputPerMTok: 1, outputPerMTok: 1, cached: 1 } } })).toMatch(
      /does not define/,
    );
    expect(problem({ asOf: '2026-12-01', models: {}, currency: 'EUR' })).toMatch(/does not define/);
  });
});
