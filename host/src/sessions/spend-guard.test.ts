import type { Price } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { BudgetStop, INPUT_MARGIN, MIN_CALL_OUTPUT, allowedOutput, promptRefusal } from './spend-guard.js';

const price: Price = { inputPerMTok: 3, outputPerMTok: 15, asOf: '2026-03-21', source: 'table' };
const call = (inputTokens: number, maxOutput = 8192) => ({ inputTokens, maxOutput, model: 'claude-sonnet-4-5' });
const spent = (tokens: number, usd = 0, unpricedCalls = 0) => ({ tokens, usd, unpricedCalls });

function stop(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof BudgetStop) return error.text;
    throw error;
  }
  throw new Error('the call was allowed');
}

describe('a budget before a model call', () => {
  it('leaves a call alone without a budget', () => {
    expect(allowedOutput(spent(10 ** 9), undefined, call(500_000))).toBe(8192);
  });

  it('allows a call whose input (with its margin) and whole max_tokens fit', () => {
    const input = 1000;
    const need = Math.ceil(input * (1 + INPUT_MARGIN)) + 8192;
    expect(allowedOutput({ ...spent(5000), budget: { tokens: 5000 + need } }, undefined, call(input))).toBe(8192);
  });

  it('lowers max_tokens to the room left, down to MIN_CALL_OUTPUT, and no further', () => {
    const input = 1000;
    const counted = Math.ceil(input * (1 + INPUT_MARGIN));
    const budget = (room: number) => ({ ...spent(5000), budget: { tokens: 5000 + counted + room } });
    expect(allowedOutput(budget(3000), undefined, call(input))).toBe(3000);
    expect(allowedOutput(budget(MIN_CALL_OUTPUT), undefined, call(input))).toBe(MIN_CALL_OUTPUT);
    const text = stop(() => allowedOutput(budget(MIN_CALL_OUTPUT - 1), undefined, call(input)));
    expect(text).toBe(
      `Budget reached: 5000 of ${5000 + counted + MIN_CALL_OUTPUT - 1} tokens spent, and the next model call could use ${counted + MIN_CALL_OUTPUT} or more (${counted} in, at least ${MIN_CALL_OUTPUT} out).`,
    );
  });

  it('a call that asks for less than MIN_CALL_OUTPUT needs only that much room', () => {
    expect(allowedOutput({ ...spent(0), budget: { tokens: 1100 + 300 } }, undefined, call(1000, 300))).toBe(300);
  });

  it('prices a dollar budget at the model price: max_tokens is what the dollars left buy', () => {
    // 1,000 in ($0.0033 with the margin) leaves $0.0967 = 6,446 output tokens at $15 per million.
    const output = allowedOutput({ ...spent(0, 0.9), budget: { usd: 1 } }, price, call(1000));
    expect(output).toBe(Math.floor(((1 - 0.9 - (1100 * 3) / 1e6) * 1e6) / 15));
    expect(stop(() => allowedOutput({ ...spent(0, 0.99), budget: { usd: 1 } }, price, call(1000)))).toMatch(
      /^Budget reached: \$0\.9900 of \$1\.00 spent/,
    );
  });

  it('never calls a model without a known price under a dollar budget, nor after calls it could not price', () => {
    expect(stop(() => allowedOutput({ ...spent(0), budget: { usd: 5 } }, undefined, call(10)))).toMatch(
      /no price is known for claude-sonnet-4-5/,
    );
    expect(stop(() => allowedOutput({ ...spent(0, 0, 2), budget: { usd: 5 } }, price, call(10)))).toMatch(
      /2 model calls of this session had no known price/,
    );
  });

  it('stops at whichever of tokens and dollars comes first', () => {
    expect(allowedOutput({ ...spent(0), budget: { tokens: 1_000_000, usd: 0.05 } }, price, call(1000))).toBeLessThan(
      8192 / 2,
    );
    expect(() => allowedOutput({ ...spent(0), budget: { tokens: 2000, usd: 100 } }, price, call(1000))).toThrow(
      BudgetStop,
    );
  });
});

describe('a budget before an agent’s prompt', () => {
  it('sends while the session has spent less, and never to an agent that does not say what it used', () => {
    expect(promptRefusal({ ...spent(999), budget: { tokens: 1000 } }, true, 'Gemini CLI')).toBeUndefined();
    expect(promptRefusal({ ...spent(1000), budget: { tokens: 1000 } }, true, 'Gemini CLI')).toBe(
      'Budget reached: 1000 of 1000 tokens spent.',
    );
    expect(promptRefusal({ ...spent(0), budget: { tokens: 1000 } }, false, 'Claude Code')).toMatch(
      /^Claude Code does not say what its turns use/,
    );
    expect(promptRefusal(spent(10 ** 9), false, 'Claude Code')).toBeUndefined();
    expect(promptRefusal({ ...spent(0, 0, 1), budget: { usd: 1 } }, true, 'Gemini CLI')).toMatch(
      /without a known price/,
    );
  });
});
