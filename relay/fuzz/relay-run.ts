import type { RandomBytes } from '@tether/shared-protocol';
import { REMOTE_MUTATIONS, mutate as mutateWith, parseFuzzArgs } from '@tether/shared-protocol/testing';

/**
 * The relay fuzz run's budget and seed from the command line, its seeded choices and bytes (so
 * `--seed N` repeats a run), failures kept with a count (the first twenty are printed), outcomes
 * counted by name, and the closing lines.
 */

const args = parseFuzzArgs(process.argv.slice(2), 20, (line) => console.log(line));
if (!args.ok) {
  console.error(`fuzz relay: ${args.message}`);
  process.exit(2);
}
export const { budget, random } = args;
const replaySeed = args.seed;
let failureCount = 0;
const failures: string[] = [];
export const failure = (what: string) => {
  failureCount++;
  if (failures.length < 20) failures.push(what);
};
process.on('unhandledRejection', (reason) => failure(`unhandled rejection: ${String(reason)}`));
process.on('uncaughtException', (error) => failure(`uncaught exception: ${error.stack ?? error.message}`));

/** How many failures the run has had so far. */
export const failed = () => failureCount;
export const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
export const chance = (p: number) => random() < p;
export const mutate = (seed: Uint8Array) => mutateWith(seed, random, REMOTE_MUTATIONS);
export const bytesOf = (length: number) => Uint8Array.from({ length }, () => Math.floor(random() * 256));
export const randomBytes = (max: number) => bytesOf(Math.floor(random() * max));
/** Every byte the run makes comes from the seed, so `--seed` repeats a run. */
export const seededBytes: RandomBytes = (n) => bytesOf(n);
const outcomes = new Map<string, number>();
export const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);

/** Lets queued microtasks and promise callbacks run (timers stay on the manual clock). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Prints the closing lines: the summary, the outcomes, `extra`, the failures and how to run them again. */
export function report(extra: string[]): void {
  console.log(`fuzz relay: ${budget.summary()}, ${failureCount} failures`);
  console.log(
    `  outcomes: ${[...outcomes]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k}=${n}`)
      .join(', ')}`,
  );
  for (const line of extra) console.log(`  ${line}`);
  for (const f of failures) console.log(`  ${f}`);
  if (failureCount > 0) console.log(`  again with: npm run fuzz -- relay --seed ${replaySeed}`);
}
