import { describe, expect, it } from 'vitest';
import type { OptionSpec } from './args.js';
import { flag, listOption, optionWords, parseArgs, stringOption } from './args.js';

const SPECS: OptionSpec[] = [
  { name: 'json', type: 'boolean', description: '' },
  { name: 'data-dir', type: 'string', description: '' },
  { name: 'root', type: 'list', description: '' },
];

function parse(...argv: string[]) {
  return parseArgs(argv, SPECS, 'tether devices revoke');
}

function refusal(...argv: string[]): string {
  const parsed = parse(...argv);
  if (parsed.ok) throw new Error(`accepted ${argv.join(' ')}`);
  expect(parsed.error.code).toBe('invalid-params');
  return parsed.error.message;
}

const DASHED_ID = '-Qx3kT9x0aQ1bZc7Yw_8Aa';

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

  it('takes a value that starts with a dash written with =, and a lone - as a value', () => {
    const parsed = parse('--data-dir=-odd', '--root', '-');
    expect(parsed.ok && stringOption(parsed.value, 'data-dir')).toBe('-odd');
    expect(parsed.ok && listOption(parsed.value, 'root')).toEqual(['-']);
  });

  it('refuses a value that starts with a dash after a space, and says how to write it', () => {
    expect(refusal('--data-dir', '-odd')).toBe(
      '--data-dir needs a value: one that starts with a dash is written --data-dir=-odd',
    );
    expect(refusal('--root', '/a', '--root', '--json')).toBe(
      '--root needs a value: one that starts with a dash is written --root=--json',
    );
  });

  it('ends options at --, and keeps -, negative numbers and dashed words after it as positionals', () => {
    const parsed = parse('-', '--', '-5', '--json', '-x');
    expect(parsed.ok && parsed.value.positionals).toEqual(['-', '-5', '--json', '-x']);
    expect(parsed.ok && flag(parsed.value, 'json')).toBe(false);
  });

  it('keeps an id that starts with a dash as a positional after -- (a device id is base64url)', () => {
    const parsed = parse('--json', '--', DASHED_ID);
    expect(parsed.ok && parsed.value.positionals).toEqual([DASHED_ID]);
    expect(parsed.ok && flag(parsed.value, 'json')).toBe(true);
  });

  it('refuses an id that starts with a dash before --, naming it whole and saying where it goes', () => {
    expect(refusal(DASHED_ID, '--json')).toBe(
      `unknown option ${DASHED_ID}: an argument that starts with a dash goes after --, as in: tether devices revoke -- ${DASHED_ID}`,
    );
    expect(refusal('--json', '-5')).toBe(
      'unknown option -5: an argument that starts with a dash goes after --, as in: tether devices revoke -- -5',
    );
    // The example is a line to paste: a word a shell would split is quoted.
    expect(refusal('-fix the build, then rerun it')).toBe(
      "unknown option -fix the build, then rerun it: an argument that starts with a dash goes after --, as in: tether devices revoke -- '-fix the build, then rerun it'",
    );
    expect(refusal('--data-dir', '-my files')).toBe(
      "--data-dir needs a value: one that starts with a dash is written '--data-dir=-my files'",
    );
    // Without the command's words, the example is generic.
    const bare = parseArgs([DASHED_ID], SPECS);
    expect(!bare.ok && bare.error.message).toBe(
      `unknown option ${DASHED_ID}: an argument that starts with a dash goes after --, as in: … -- ${DASHED_ID}`,
    );
  });

  it('writes a value that starts with a dash as --name=value, for a line to copy', () => {
    expect(optionWords('revoke', DASHED_ID)).toEqual([`--revoke=${DASHED_ID}`]);
    expect(optionWords('revoke', 'Qx3kT9')).toEqual(['--revoke', 'Qx3kT9']);
    const copied = parse(...optionWords('data-dir', DASHED_ID));
    expect(copied.ok && stringOption(copied.value, 'data-dir')).toBe(DASHED_ID);
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
    [['--data-dir', '/a', '--data-dir'], '--data-dir needs a value'],
    [['--json', '-abc', '-Qx3kT9x0aQ1bZc7Yw_8Aa'], 'unknown option -abc'],
  ])('refuses %j with "%s"', (argv, message) => {
    expect(refusal(...argv)).toBe(message);
  });
});
