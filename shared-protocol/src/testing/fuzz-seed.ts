import { seededUnitRandom } from './seeded-random.js';
import type { UnitRandom } from './mutations.js';

/**
 * Where a fuzz run's choices come from: `--seed N` (a 32-bit whole number) runs the same choices
 * again, to replay a failure; without it a fresh seed is drawn. A target prints the seed with its
 * failures. Keys and nonces a target makes stay truly random; the seed decides what is tried.
 */
export type FuzzSeedResult = { ok: true; seed: number; random: UnitRandom } | { ok: false; message: string };

export function parseFuzzSeed(argv: readonly string[], fresh: () => number = Math.random): FuzzSeedResult {
  const at = argv.indexOf('--seed');
  let seed: number;
  if (at < 0) seed = Math.floor(fresh() * 2 ** 32);
  else {
    const text = argv[at + 1] ?? '';
    if (!/^\d+$/.test(text) || Number(text) >= 2 ** 32) {
      return { ok: false, message: '--seed takes a whole number below 2^32' };
    }
    seed = Number(text);
  }
  return { ok: true, seed, random: seededUnitRandom(seed) };
}
