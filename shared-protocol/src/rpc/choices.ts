import * as v from 'valibot';

/**
 * What a session's summary says of how it is steered: its mode, an agent's model, its budget.
 * Small on purpose (every summary carries them); the lists to choose from are `sessions.controls`.
 */

/** A mode's or a model's id as its back-end names it (an agent's own text: bounded, never parsed). */
export const ChoiceId = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

/** The mode a session is in, or the model an agent runs, by id and by the name shown for it. */
export const ChoiceRefSchema = v.object({ id: ChoiceId, name: v.pipe(v.string(), v.maxLength(100)) });
export type ChoiceRef = v.InferOutput<typeof ChoiceRefSchema>;

/** Tokens (in and out together) a budget may name at most: a trillion. */
export const MAX_BUDGET_TOKENS = 1e12;
/** US dollars a budget may name at most. */
export const MAX_BUDGET_USD = 1e6;

/**
 * What a session may spend over its whole life, in tokens (in and out together), in US dollars,
 * or both (it stops at whichever comes first). At least one.
 */
export const SessionBudgetSchema = v.pipe(
  v.object({
    tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_BUDGET_TOKENS))),
    usd: v.optional(v.pipe(v.number(), v.minValue(0.01), v.maxValue(MAX_BUDGET_USD))),
  }),
  v.check((b) => b.tokens !== undefined || b.usd !== undefined, 'a budget names tokens, dollars or both'),
);
export type SessionBudget = v.InferOutput<typeof SessionBudgetSchema>;
