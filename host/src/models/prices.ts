import type { Price } from '@tether/shared-protocol';

/**
 * What common models cost, in US dollars per million tokens, as published by their providers on
 * the date below: list prices for standard (not batch) requests. A model not named here has no
 * known price, and its cost is never shown: its tokens are. `<data-dir>/prices.json` adds models
 * or overrides these (price-config.ts). Cached prompt tokens are priced as input tokens here (the
 * providers charge less for them), so a cost is never less than what was charged.
 */
export const PRICE_TABLE_AS_OF = '2026-03-21';

const TABLE: Readonly<Record<string, readonly [input: number, output: number]>> = {
  // Anthropic
  'claude-opus-4-6': [5, 25],
  'claude-opus-4-5': [5, 25],
  'claude-opus-4-1': [15, 75],
  'claude-opus-4-0': [15, 75],
  'claude-sonnet-4-6': [3, 15],
  'claude-sonnet-4-5': [3, 15],
  'claude-sonnet-4-0': [3, 15],
  'claude-3-7-sonnet': [3, 15],
  'claude-haiku-4-5': [1, 5],
  'claude-3-5-haiku': [0.8, 4],
  'claude-3-haiku': [0.25, 1.25],
  // OpenAI
  'gpt-5.4': [2.5, 15],
  'gpt-5.1': [1.25, 10],
  'gpt-5': [1.25, 10],
  'gpt-5-mini': [0.25, 2],
  'gpt-5-nano': [0.05, 0.4],
  'gpt-4.1': [2, 8],
  'gpt-4.1-mini': [0.4, 1.6],
  'gpt-4.1-nano': [0.1, 0.4],
  'gpt-4o': [2.5, 10],
  'gpt-4o-mini': [0.15, 0.6],
  o3: [2, 8],
  'o4-mini': [1.1, 4.4],
};

/** The prices in force: the table, then the host's own file over it. */
export interface PriceBook {
  /** The price of a provider's model name (`claude-sonnet-4-5-20250929`, `gpt-4.1`), if known. */
  priceOf(model: string): Price | undefined;
}

/**
 * A model's name without a dated snapshot suffix (`-20250929`, `-2025-04-14`), so a snapshot is
 * priced as its model. Nothing else is taken off: `gpt-5` never prices `gpt-5.4` or `gpt-5-pro`.
 */
export function undated(model: string): string {
  return model.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, '');
}

/** The built-in table, under `overrides` (name → price, or null: no known price). */
export function priceBook(
  overrides: ReadonlyMap<string, Price | null> = new Map(),
  asOf = PRICE_TABLE_AS_OF,
): PriceBook {
  return {
    priceOf(model) {
      for (const name of [model, undated(model)]) {
        const own = overrides.get(name);
        if (own !== undefined) return own ?? undefined;
      }
      const row = TABLE[model] ?? TABLE[undated(model)];
      return row && { inputPerMTok: row[0], outputPerMTok: row[1], asOf, source: 'table' };
    },
  };
}

/** US dollars for one call's tokens at `price`. */
export function costOf(price: Price, inputTokens: number, outputTokens: number): number {
  return (inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1_000_000;
}
