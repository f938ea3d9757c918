import { parseArgs as nodeParseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { shellWord } from '../sessions/trust/json-config.js';
/**
 * Reads argv with `node:util`'s `parseArgs`, strict (`--flag`, `--key value`, `--key=value`,
 * repeatable options, `--` ending options, positionals): anything else is a usage error in the
 * CLI's own words, naming the option as typed. A value that starts with a dash is written
 * `--key=-value`, and a positional that starts with a dash goes after `--`.
 */
export interface OptionSpec {
  name: string;
  /** 'boolean' takes no value; 'string' takes one; 'list' takes one and may repeat. */
  type: 'boolean' | 'string' | 'list';
  description: string;
  /** Shown as `--name VALUE` in help. */
  value?: string;
  /**
   * A value of this shape is taken after a space even when it starts with a dash (`--host-key
   * -Qx…`): lines written before such values needed `=`, like a background service's, still read.
   */
  dashValue?: RegExp;
}

export interface ParsedArgs {
  options: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * A negative number (`-1`), or a dashed word long enough to be an id, was meant as a positional,
 * not a cluster of short options (the CLI has none): a device id is base64url, and one in 64
 * starts with a dash. Its refusal says to put it after `--`.
 */
const POSITIONAL_WITH_DASH = /^-(\d|[^-]{11,})/;

/**
 * `command` is the command line so far (`tether devices revoke`), for the example in a refusal.
 */
export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[], command = '…'): Result<ParsedArgs> {
  const options: ParseArgsConfig['options'] = Object.fromEntries(
    specs.map((s) => [s.name, { type: s.type === 'boolean' ? 'boolean' : 'string', multiple: s.type === 'list' }]),
  );
  try {
    const args = joinDashValues(argv, specs);
    const { values, positionals } = nodeParseArgs({ args, options, strict: true, allowPositionals: true });
    return ok({ options: { ...values } as ParsedArgs['options'], positionals });
  } catch (error) {
    return refusal(error, argv, specs, command);
  }
}

/** `--key -value` as `--key=-value` where the option's `dashValue` takes that value's shape. */
function joinDashValues(argv: readonly string[], specs: readonly OptionSpec[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return [...args, ...argv.slice(i)];
    const next = argv[i + 1];
    const shape = specs.find((s) => `--${s.name}` === word)?.dashValue;
    if (shape && next?.startsWith('-') && shape.test(next)) {
      args.push(`${word}=${next}`);
      i++;
    } else args.push(word);
  }
  return args;
}

/** A refusal of `parseArgs` in this CLI's words, naming the option as it was typed. */
function refusal(
  error: unknown,
  argv: readonly string[],
  specs: readonly OptionSpec[],
  command: string,
): Result<never> {
  const code = (error as { code?: unknown }).code;
  const name = /'(-[^' <]*)/.exec(error instanceof Error ? error.message : '')?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && name) {
    if (name.startsWith('--')) return fail('invalid-params', `unknown option ${name}`);
    // No option is short, so the first dashed word is the one refused (`-abc`, not `-a`).
    const typed = argv.find((a) => /^-[^-]/.test(a)) ?? name;
    if (!POSITIONAL_WITH_DASH.test(typed)) return fail('invalid-params', `unknown option ${typed}`);
    return fail(
      'invalid-params',
      `unknown option ${typed}: an argument that starts with a dash goes after --, as in: ${command} -- ${shellWord(typed)}`,
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && name) {
    if (specs.find((s) => `--${s.name}` === name)?.type === 'boolean') {
      return fail('invalid-params', `${name} takes no value`);
    }
    // Missing at the end, or followed by a dashed word that could be an option.
    const at = argv.findIndex((a, i) => a === name && !isPlainValue(argv[i + 1]));
    const next = argv[at + 1];
    return fail(
      'invalid-params',
      next === undefined
        ? `${name} needs a value`
        : `${name} needs a value: one that starts with a dash is written ${shellWord(`${name}=${next}`)}`,
    );
  }
  throw error;
}

function isPlainValue(word: string | undefined): boolean {
  return word !== undefined && !(word.length > 1 && word.startsWith('-'));
}

/**
 * `--name value` as words for a command line to copy or run: `--name=value` when the value starts
 * with a dash, which would otherwise be refused as ambiguous.
 */
export function optionWords(name: string, value: string): string[] {
  return value.startsWith('-') ? [`--${name}=${value}`] : [`--${name}`, value];
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const v = args.options[name];
  return typeof v === 'string' ? v : undefined;
}

export function listOption(args: ParsedArgs, name: string): string[] {
  const v = args.options[name];
  return Array.isArray(v) ? v : [];
}

export function flag(args: ParsedArgs, name: string): boolean {
  return args.options[name] === true;
}
