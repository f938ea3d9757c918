import { MAX_PUSH_SUMMARY } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { summariseAction } from './approval-summary.js';
import { matchesPattern } from './lock-screen-policy.js';

describe('the one-line summary of an action', () => {
  it('shows a one-line action whole', () => {
    expect(summariseAction('npm test\n')).toEqual({ text: 'npm test', shownWhole: true });
  });

  it('shows hidden characters as marks, so a notification cannot hide what runs', () => {
    const s = summariseAction('ls \u202e; rm -rf ~ \u200b\r\x1b[2K');
    expect(s.text).toBe('ls ⟨U+202E⟩; rm -rf ~ ⟨U+200B⟩⟨CR⟩⟨ESC⟩[2K');
    expect([...s.text].some((c) => ['\u202e', '\u200b', '\r', '\x1b'].includes(c))).toBe(false);
  });

  it('says how many more lines there are, and when the line was cut', () => {
    expect(summariseAction('npm test\ntouch /tmp/pwned\n')).toEqual({
      text: 'npm test (+1 more line)',
      shownWhole: false,
    });
    const long = summariseAction('x'.repeat(1000) + '\na\nb');
    expect(long.text).toBe(`${'x'.repeat(MAX_PUSH_SUMMARY - 1)}… (+2 more lines)`);
    expect(long.shownWhole).toBe(false);
  });

  it('stays fast on a hostile action (half a megabyte of newlines, then text)', () => {
    const started = performance.now();
    const s = summariseAction('\n'.repeat(512 * 1024) + 'x');
    expect(s.text).toBe(' (+524288 more lines)');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('lock-screen patterns', () => {
  it('match anywhere, ignoring case and runs of spaces, with * for any text', () => {
    expect(matchesPattern('cd x && SUDO  make install', 'sudo ')).toBe(true);
    expect(matchesPattern('sudo', 'sudo ')).toBe(true);
    expect(matchesPattern('pseudocode.txt', 'sudo ')).toBe(false);
    expect(matchesPattern('git push origin main --force-with-lease', 'git push*--force')).toBe(true);
    expect(matchesPattern('git push origin main', 'git push*--force')).toBe(false);
    expect(matchesPattern('git\tpush\n-f', 'git push*-f')).toBe(true);
  });
});
