import { describe, expect, it } from 'vitest';
import type { OptionSpec } from './args.js';
import { flag, listOption, parseArgs, stringOption } from './args.js';

const SPECS: OptionSpec[] = [
  { name: 'json', type: 'boolean', description: '' },
  { name: 'data-dir', type: 'string', description: '' },
  { name: 'root', type: 'list', description: '' },
];

function parse(...argv: string[]) {
  return parseArgs(argv, SPECS);
}

describe('parseArgs', () => {
  it('reads flags, values in both spellings, repeats and positionals in order', () => {
    const parsed = parse('a', '--json', '--data-dir', '/x', '--root=/r1', 'b', '--root', '/r2');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.positionals).toEqual(['a', 'b']);
    expect(flag(parsed.value, 'json')).toBe(true);
    expect(stringOption(parsed.value, 'data-dir')).toBe('/x');
    expect(listOption(parsed.value, 'root')).toEqual(['/r1', '/r2']);
  });

  it('keeps the last of a repeated single-valued option', () => {
    const parsed = parse('--data-dir', '/a', '--data-dir=/b');
    expect(parsed.ok && stringOption(parsed.value, 'data-dir')).toBe('/b');
  });

  it('takes a value that starts with a dash, as the value it follows', () => {
    const parsed = parse('--data-dir', '-odd');
    expect(parsed.ok && stringOption(parsed.value, 'data-dir')).toBe('-odd');
  });

  it('ends options at --, and keeps -, negative numbers and dashed words after it as positionals', () => {
    const parsed = parse('-', '-5', '--', '--json', '-x');
    expect(parsed.ok && parsed.value.positionals).toEqual(['-', '-5', '--json', '-x']);
    expect(parsed.ok && flag(parsed.value, 'json')).toBe(false);
  });

  it('keeps an id that starts with a dash as a positional (a device id is base64url)', () => {
    const id = '-Qx3kT9x0aQ1bZc7Yw_8Aa';
    const parsed = parse('devices', 'revoke', id, '--json');
    expect(parsed.ok && parsed.value.positionals).toEqual(['devices', 'revoke', id]);
    expect(parsed.ok && flag(parsed.value, 'json')).toBe(true);
  });

  it.each([
    [['--nope'], 'unknown option --nope'],
    [['--nope=1'], 'unknown option --nope'],
    [['-x'], 'unknown option -x'],
    [['-abc'], 'unknown option -abc'],
    [['-h'], 'unknown option -h'],
    [['--json=yes'], '--json takes no value'],
    [['--data-dir'], '--data-dir needs a value'],
    [['--root'], '--root needs a value'],
  ])('refuses %j with "%s"', (argv, message) => {
    const parsed = parse(...argv);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.code).toBe('invalid-params');
    expect(parsed.error.message).toBe(message);
  });
});
