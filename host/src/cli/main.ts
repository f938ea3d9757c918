import { visibleText } from '@tether/shared-protocol';
import { parseArgs } from './args.js';
import type { Command } from './command.js';
import { Exit } from './command.js';
import { commandUsage, optionsWithHelp, overview } from './help.js';
import { COMMANDS } from './registry.js';
import { VERSION } from '../version.js';

/** Picks the command whose path is the longest prefix of argv. */
function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const command of COMMANDS) {
    const matches = command.path.every((word, i) => argv[i] === word);
    if (matches && (!best || command.path.length > best.path.length)) best = command;
  }
  return best && { command: best, rest: argv.slice(best.path.length) };
}

export async function main(argv: readonly string[]): Promise<number> {
  const { stdout, stderr } = process;
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help' || argv[0] === '-h') {
    stdout.write(overview(COMMANDS, VERSION));
    return argv.length === 0 ? Exit.Usage : Exit.Ok;
  }
  if (argv[0] === '--version') {
    stdout.write(`${VERSION}\n`);
    return Exit.Ok;
  }
  const found = findCommand(argv);
  if (!found) {
    stderr.write(`tether: unknown command '${visibleText(argv.join(' '))}'. See 'tether --help'.\n`);
    return Exit.Usage;
  }
  const { command, rest } = found;
  // Asking for help is answered, whatever else is on the line (before a `--`).
  const beforeDashes = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  if (beforeDashes.includes('--help')) {
    stdout.write(commandUsage(command));
    return Exit.Ok;
  }
  const parsed = parseArgs(rest, optionsWithHelp(command), `tether ${command.path.join(' ')}`);
  if (!parsed.ok) {
    stderr.write(`tether ${command.path.join(' ')}: ${visibleText(parsed.error.message)}\n\n${commandUsage(command)}`);
    return Exit.Usage;
  }
  const [min, max] = command.arity;
  const count = parsed.value.positionals.length;
  if (count < min || count > max) {
    stderr.write(
      `tether ${command.path.join(' ')}: expected ${min === max ? min : `${min} to ${max}`} argument(s)\n\n${commandUsage(command)}`,
    );
    return Exit.Usage;
  }
  return command.run({ args: parsed.value, stdout, stderr, env: process.env });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `tether: ${visibleText(error instanceof Error ? (error.stack ?? error.message) : String(error), { multiline: true })}\n`,
    );
    process.exitCode = Exit.Error;
  },
);
