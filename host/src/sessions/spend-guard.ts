import type { Price, SessionBudget } from '@tether/shared-protocol';

/**
 * A session's budget, kept before each model call. "At the budget" means: a call is made only
 * when what the session has spent, plus everything the call may spend, fits in the budget. What a
 * call may spend is its input tokens (counted as the loop counts a request for its context: the
 * provider's own count of the previous request, scaled to what was added since, plus
 * INPUT_MARGIN) and its `max_tokens`, which is lowered to the room left, but never below
 * MIN_CALL_OUTPUT: a call with less room than that is not made, and the run stops before it. In
 * dollars, both are priced at the model's price; a model without a known price is never called
 * under a dollar budget.
 */

/** What a session has spent so far (its totals), and its budget. */
export interface SpendState {
  budget?: SessionBudget;
  /** Tokens in and out together, over the session. */
  tokens: number;
  /** US dollars of its priced model calls. */
  usd: number;
  /** Its model calls without a known price: their dollars are not in `usd`. */
  unpricedCalls: number;
}

/** Output tokens a call is given at the least: a call with less room is not made. */
export const MIN_CALL_OUTPUT = 1024;
/** Added to a request's counted input tokens: what the count may still miss. */
export const INPUT_MARGIN = 0.1;

/** Thrown where a model call would be made: the run stops before it, saying `text`. */
export class BudgetStop extends Error {
  override name = 'BudgetStop';
  constructor(readonly text: string) {
    super(text);
  }
}

export interface CallShape {
  /** The request's input tokens as counted. */
  inputTokens: number;
  /** The output tokens the call would ask for without a budget. */
  maxOutput: number;
  /** The provider's name for the model, for what is said. */
  model: string;
}

/**
 * The `max_tokens` the call may have under the budget: `maxOutput` when there is no budget, or
 * when it fits; less when only less fits. Throws BudgetStop when not even MIN_CALL_OUTPUT fits.
 */
export function allowedOutput(state: SpendState, price: Price | undefined, call: CallShape): number {
  const { budget } = state;
  if (!budget) return call.maxOutput;
  const input = Math.ceil(call.inputTokens * (1 + INPUT_MARGIN));
  const floor = Math.min(MIN_CALL_OUTPUT, call.maxOutput);
  let output = call.maxOutput;
  if (budget.tokens !== undefined) {
    const room = budget.tokens - state.tokens - input;
    if (room < floor) {
      throw new BudgetStop(
        `Budget reached: ${state.tokens} of ${budget.tokens} tokens spent, and the next model call could use ${input + floor} or more (${input} in, at least ${floor} out).`,
      );
    }
    output = Math.min(output, room);
  }
  if (budget.usd !== undefined) {
    if (!price) {
      throw new BudgetStop(
        `The budget is in dollars, and no price is known for ${call.model}: set the price in prices.json, or set a budget in tokens.`,
      );
    }
    if (state.unpricedCalls > 0) {
      throw new BudgetStop(
        `The budget is in dollars, and ${state.unpricedCalls} model ${state.unpricedCalls === 1 ? 'call' : 'calls'} of this session had no known price, so what it spent is not known: set a budget in tokens.`,
      );
    }
    const inputUsd = (input * price.inputPerMTok) / 1_000_000;
    const leftUsd = budget.usd - state.usd - inputUsd;
    const room = price.outputPerMTok > 0 ? Math.floor((leftUsd * 1_000_000) / price.outputPerMTok) : Infinity;
    if (leftUsd < 0 || room < floor) {
      throw new BudgetStop(
        `Budget reached: $${state.usd.toFixed(4)} of $${budget.usd.toFixed(2)} spent, and the next model call could cost $${(inputUsd + (floor * price.outputPerMTok) / 1_000_000).toFixed(4)} or more.`,
      );
    }
    output = Math.min(output, room);
  }
  return output;
}

/**
 * Before an agent's next prompt: an agent's own model calls are out of Tether's sight, so a prompt
 * is sent only while the session has spent less than its budget, and only to an agent whose turns
 * say what they used. Returns why not, or undefined.
 */
export function promptRefusal(state: SpendState, reportsUsage: boolean | undefined, agent: string): string | undefined {
  const { budget } = state;
  if (!budget) return undefined;
  if (reportsUsage === false) {
    return `${agent} does not say what its turns use, so this session's budget cannot be kept: remove the budget to go on.`;
  }
  if (budget.tokens !== undefined && state.tokens >= budget.tokens) {
    return `Budget reached: ${state.tokens} of ${budget.tokens} tokens spent.`;
  }
  if (budget.usd !== undefined) {
    if (state.unpricedCalls > 0) {
      return `The budget is in dollars, and ${agent} used models without a known price, so what this session spent is not known: set a budget in tokens.`;
    }
    if (state.usd >= budget.usd) return `Budget reached: $${state.usd.toFixed(4)} of $${budget.usd.toFixed(2)} spent.`;
  }
  return undefined;
}
