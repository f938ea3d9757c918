import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
/**
 * A small argv parser: `--flag`, `--key value`, `--key=value`, repeatable options, `--` ending
 * options, and positionals. Unknown options are usage errors, not silently ignored.
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

export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[]): Result<ParsedArgs> {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const options: ParsedArgs['options'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      if (arg.startsWith('-') && arg !== '-' && !/^-\d/.test(arg)) {
        return fail('invalid-params', `unknown option ${arg}`);
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = byName.get(name);
    if (!spec) return fail('invalid-params', `unknown option --${name}`);
    if (spec.type === 'boolean') {
      if (eq >= 0) return fail('invalid-params', `--${name} takes no value`);
      options[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else value = argv[++i];
    if (value === undefined) return fail('invalid-params', `--${name} needs a value`);
    if (spec.type === 'list') options[name] = [...((options[name] as string[] | undefined) ?? []), value];
    else options[name] = value;
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
