import type { OptionSpec, ParsedArgs } from './args.js';

/** Exit codes every command uses. */
export const Exit = { Ok: 0, Error: 1, Usage: 2 } as const;

export interface CommandContext {
  args: ParsedArgs;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** Words after `tether`, e.g. `['sessions', 'new']`. */
  path: string[];
  summary: string;
  /** Positional part of the usage line, e.g. `ID allow|deny`. */
  usage?: string;
  /** More lines for `--help`. */
  details?: string;
  options: OptionSpec[];
  /** Positional arguments: [min, max]. */
  arity: [number, number];
  run(context: CommandContext): Promise<number>;
}
