/**
 * How long a fuzz run goes on: `--inputs N` (exactly N inputs, for long runs whose size is known
 * ahead) or `--seconds N` (wall time, the default for a quick run). Every fuzz target reads its
 * command line through this, so `npm run fuzz -- all --inputs N` means the same for each.
 */
export interface FuzzBudget {
  /** Inputs tried so far; the target adds one per input. */
  tried: number;
  /** Whether another input fits in the budget. */
  more(): boolean;
  /** Logs a progress line about every tenth of an `--inputs` budget (a long run shows it is alive). */
  progress(target: string): void;
  /** `N inputs in S s` for the closing line. */
  summary(): string;
}

export type FuzzBudgetResult = { ok: true; budget: FuzzBudget } | { ok: false; message: string };

function numberAfter(argv: readonly string[], name: string): number | undefined | 'bad' {
  const at = argv.indexOf(name);
  if (at < 0) return undefined;
  const text = argv[at + 1] ?? '';
  return /^\d+(\.\d+)?$/.test(text) && Number(text) > 0 ? Number(text) : 'bad';
}

export function parseFuzzBudget(
  argv: readonly string[],
  defaults: { seconds: number },
  now: () => number = Date.now,
  log: (line: string) => void = () => undefined,
): FuzzBudgetResult {
  const inputs = numberAfter(argv, '--inputs');
  const seconds = numberAfter(argv, '--seconds');
  if (inputs === 'bad') return { ok: false, message: '--inputs takes a positive whole number' };
  if (seconds === 'bad') return { ok: false, message: '--seconds takes a positive number' };
  if (inputs !== undefined && seconds !== undefined)
    return { ok: false, message: 'give --inputs or --seconds, not both' };
  const started = now();
  const deadline = inputs === undefined ? started + (seconds ?? defaults.seconds) * 1000 : Infinity;
  const limit = inputs === undefined ? Infinity : Math.floor(inputs);
  const step = Number.isFinite(limit) ? Math.max(1, Math.ceil(limit / 10)) : Infinity;
  let nextReport = step;
  const budget: FuzzBudget = {
    tried: 0,
    more: () => budget.tried < limit && now() < deadline,
    progress: (target) => {
      if (budget.tried < nextReport) return;
      nextReport += step;
      log(`fuzz ${target}: ${budget.tried} of ${limit} inputs, ${((now() - started) / 1000).toFixed(0)} s`);
    },
    summary: () => `${budget.tried} inputs in ${((now() - started) / 1000).toFixed(1)} s`,
  };
  return { ok: true, budget };
}
