import type { FuzzBudget } from './fuzz-budget.js';
import { parseFuzzBudget } from './fuzz-budget.js';
import type { UnitRandom } from './mutations.js';
import { parseFuzzSeed } from './fuzz-seed.js';

export type FuzzArgsResult =
  { ok: true; budget: FuzzBudget; seed: number; random: UnitRandom } | { ok: false; message: string };

/**
 * The command line of a target whose choices come from a seed: its budget (`--seconds N`, by
 * default `seconds`, or `--inputs N`; progress lines go to `log`) and its seed (`--seed N`). A
 * mistake in the budget is named before one in the seed.
 */
export function parseFuzzArgs(argv: readonly string[], seconds: number, log: (line: string) => void): FuzzArgsResult {
  const parsed = parseFuzzBudget(argv, { seconds }, Date.now, log);
  if (!parsed.ok) return parsed;
  const seeded = parseFuzzSeed(argv);
  if (!seeded.ok) return seeded;
  return { ok: true, budget: parsed.budget, seed: seeded.seed, random: seeded.random };
}
