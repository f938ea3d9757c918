import { parseArgs as nodeParseArgs } from 'node:util';
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
/**
 * Reads argv with `node:util`'s `parseArgs` (`--flag`, `--key value`, `--key=value`, repeatable
 * options, `--` ending options, positionals), then holds its tokens to the CLI's rules: unknown
 * options are usage errors, not silently ignored, and each refusal names the option as typed.
 */
export interface OptionSpec {
  name: string;
  /** 'boolean' takes no value; 'string' takes one; 'list' takes one and may repeat. */
  type: 'boolean' | 'string' | 'list';
  description: string;
  /** Shown as `--name VALUE` in help. */
  value?: string;
}

export interface ParsedArgs {
  options: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * A negative number (`-1`), or a dashed word long enough to be an id, is a positional, not a
 * cluster of short options (the CLI has none): a device id is base64url, and one in 64 starts
 * with a dash (`tether devices revoke -Qx…`). Short dashed words (`-h`, `-abc`) are still refused.
 */
const POSITIONAL_WITH_DASH = /^-(\d|[^-]{11,})/;

export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[]): Result<ParsedArgs> {
  const byName = new Map(specs.map((s) => [s.name, s]));
  // Not strict: the tokens are checked below, so that each message keeps the wording people and
  // scripts know, and a value starting with a dash (`--data-dir -x`) is still a value.
  const { tokens } = nodeParseArgs({
    args: [...argv],
    options: Object.fromEntries(
      specs.map((s) => [s.name, { type: s.type === 'boolean' ? 'boolean' : 'string', multiple: s.type === 'list' }]),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const options: ParsedArgs['options'] = {};
  const positionals: string[] = [];
  // A short cluster (`-12`) is one token per letter; each argument is read once.
  let lastIndex = -1;
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.index === lastIndex) continue;
    lastIndex = token.index;
    const raw = argv[token.index]!;
    if (!raw.startsWith('--')) {
      if (POSITIONAL_WITH_DASH.test(raw)) {
        positionals.push(raw);
        continue;
      }
      return fail('invalid-params', `unknown option ${raw}`);
    }
    const spec = byName.get(token.name);
    if (!spec) return fail('invalid-params', `unknown option --${token.name}`);
    if (spec.type === 'boolean') {
      if (token.inlineValue) return fail('invalid-params', `--${token.name} takes no value`);
      options[spec.name] = true;
      continue;
    }
    if (token.value === undefined) return fail('invalid-params', `--${token.name} needs a value`);
    if (spec.type === 'list') options[spec.name] = [...listOption({ options, positionals }, spec.name), token.value];
    else options[spec.name] = token.value;
  }
  return ok({ options, positionals });
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
