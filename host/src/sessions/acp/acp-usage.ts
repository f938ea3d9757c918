import * as v from 'valibot';
import type { PriceBook } from '../../models/prices.js';
import { costOf } from '../../models/prices.js';

/**
 * What one prompt turn used, where the agent says: ACP's `usage` in the prompt's answer (an
 * unstable field: `inputTokens`, `outputTokens`), else Gemini CLI's `_meta.quota.token_count`
 * (`input_tokens`, `output_tokens`) with `model_usage` per model. Claude Code's and Codex's
 * adapters say nothing of it (Codex says how full its context is, in `usage_update`). The numbers
 * are the agent's: bounded, and a turn's count that does not decode is no count.
 */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  /** Per model, where the agent says which models the turn used. */
  models: { model: string; inputTokens: number; outputTokens: number }[];
}

/** Tokens one turn may report at most: far above any model's context, so a wild number is no count. */
const MAX_TURN_TOKENS = 1e10;
const Tokens = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_TURN_TOKENS));

const AcpUsage = v.object({ inputTokens: Tokens, outputTokens: Tokens });
const TokenCount = v.object({ input_tokens: Tokens, output_tokens: Tokens });
const Quota = v.object({
  token_count: TokenCount,
  model_usage: v.optional(
    v.pipe(
      v.array(v.object({ model: v.pipe(v.string(), v.maxLength(200)), token_count: TokenCount })),
      v.maxLength(32),
    ),
  ),
});

export function turnUsage(answer: unknown): TurnUsage | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const o = answer as { usage?: unknown; _meta?: { quota?: unknown } | null };
  const acp = v.safeParse(AcpUsage, o.usage);
  if (acp.success) return { ...acp.output, models: [] };
  const quota = v.safeParse(Quota, o._meta?.quota);
  if (!quota.success) return undefined;
  return {
    inputTokens: quota.output.token_count.input_tokens,
    outputTokens: quota.output.token_count.output_tokens,
    models: (quota.output.model_usage ?? []).map((m) => ({
      model: m.model,
      inputTokens: m.token_count.input_tokens,
      outputTokens: m.token_count.output_tokens,
    })),
  };
}

/**
 * The turn's cost, where every model it used has a known price (`model` when the agent did not
 * say which it used: the session's agent model, if any); else `unpriced`.
 */
export function turnCost(
  usage: TurnUsage,
  prices: PriceBook | undefined,
  model: string | undefined,
): { costUsd: number } | { unpriced: true } {
  const parts =
    usage.models.length > 0
      ? usage.models
      : model === undefined
        ? []
        : [{ model, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }];
  let cost = 0;
  for (const part of parts) {
    const price = prices?.priceOf(part.model);
    if (!price) return { unpriced: true };
    cost += costOf(price, part.inputTokens, part.outputTokens);
  }
  return parts.length > 0 ? { costUsd: cost } : { unpriced: true };
}
