import type { RandomBytes } from '@tether/shared-protocol';
import type { FuzzBudget, MutationProfile, UnitRandom } from '@tether/shared-protocol/testing';
import { mutate as mutateWith, parseFuzzArgs } from '@tether/shared-protocol/testing';

/**
 * What an in-process fuzz target shares: its budget and seed from the command line, seeded
 * choices and bytes (so `--seed N` runs the same inputs again), failures kept with a count (the
 * first few are printed), outcomes counted by name, and the closing lines.
 */
export class FuzzKit {
  readonly budget: FuzzBudget;
  readonly seed: number;
  readonly random: UnitRandom;
  /** Seeded bytes, for anything the run makes (ids, payloads, nonces). */
  readonly bytes: RandomBytes;
  failures = 0;
  private readonly shown: string[] = [];
  private readonly outcomes = new Map<string, number>();
  /** What the run is waiting on now, by name (several at once). */
  private readonly inFlight = new Map<number, string>();
  private nextWait = 0;

  private constructor(
    readonly name: string,
    budget: FuzzBudget,
    seed: number,
    random: UnitRandom,
    private readonly profile: MutationProfile,
  ) {
    this.budget = budget;
    this.seed = seed;
    this.random = random;
    this.bytes = (n) => {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = Math.floor(random() * 256);
      return out;
    };
  }

  /** Reads `--seconds`/`--inputs` and `--seed`; exits with the reason when they are wrong. */
  static fromArgs(name: string, defaultSeconds: number, profile: MutationProfile): FuzzKit {
    const args = parseFuzzArgs(process.argv.slice(2), defaultSeconds, (line) => console.log(line));
    if (!args.ok) {
      console.error(`fuzz ${name}: ${args.message}`);
      process.exit(2);
    }
    const kit = new FuzzKit(name, args.budget, args.seed, args.random, profile);
    process.on('unhandledRejection', (reason) => kit.fail(`unhandled rejection: ${describe(reason)}`));
    process.on('uncaughtException', (error) => kit.fail(`uncaught exception: ${describe(error)}`));
    // A target ends with process.exit; nothing left to run before that means a call that never ended.
    process.once('beforeExit', () => {
      const what = [...kit.inFlight.values()].join('; ') || 'an unnamed step';
      kit.fail(`a call never ended: nothing was left to run while the run waited for ${what}`);
      kit.report();
      process.exit(1);
    });
    return kit;
  }

  /** `promise`, named while it is pending, so that a call that never ends is named. */
  async waiting<T>(what: string, promise: Promise<T>): Promise<T> {
    const id = this.nextWait++;
    this.inFlight.set(id, what);
    try {
      return await promise;
    } finally {
      this.inFlight.delete(id);
    }
  }

  fail(what: string): void {
    this.failures++;
    if (this.shown.length < 20) this.shown.push(what);
  }

  count(what: string): void {
    this.outcomes.set(what, (this.outcomes.get(what) ?? 0) + 1);
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  int(max: number): number {
    return Math.floor(this.random() * max);
  }

  /** A copy of `seed` with a few edits (never equal to it), or random bytes. */
  mutate(seed: Uint8Array): Uint8Array {
    return mutateWith(seed, this.random, this.profile);
  }

  /** Random bytes, 0 to `max` of them. */
  randomBytes(max: number): Uint8Array {
    return this.bytes(this.int(max + 1));
  }

  /** Prints the closing lines (`fuzz NAME: N inputs in S s, F failures`, outcomes, failures). */
  report(extra: string[] = []): void {
    console.log(`fuzz ${this.name}: ${this.budget.summary()}, ${this.failures} failures`);
    console.log(
      `  outcomes: ${[...this.outcomes]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, n]) => `${k}=${n}`)
        .join(', ')}`,
    );
    for (const line of extra) console.log(`  ${line}`);
    for (const f of this.shown) console.log(`  ${f}`);
    if (this.failures > 0) console.log(`  again with: npm run fuzz -- ${this.name} --seed ${this.seed}`);
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Lets queued promise callbacks and already-due I/O callbacks run. */
export async function settle(turns = 2): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
