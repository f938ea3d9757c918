import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './unified-diff.js';

/** Applies a unified diff to `before` (strictly: context and removed lines must match). */
function applyDiff(before: string, diff: string): string {
  const source = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let cursor = 0;
  const lines = diff.split('\n').slice(2);
  for (let i = 0; i < lines.length; i++) {
    const header = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(lines[i]!);
    if (!header) continue;
    const start = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
    while (cursor < start) out.push(source[cursor++]!);
    for (i++; i < lines.length && !lines[i]!.startsWith('@@') && lines[i] !== ''; i++) {
      const [kind, text] = [lines[i]![0], lines[i]!.slice(1)];
      if (kind === '+') out.push(text);
      else {
        expect(source[cursor]).toBe(text);
        cursor++;
        if (kind === ' ') out.push(text);
      }
    }
    i--;
  }
  while (cursor < source.length) out.push(source[cursor++]!);
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

describe('unifiedDiff', () => {
  it('shows a one-line change with context', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\n';
    const after = 'a\nb\nc\nD\ne\nf\ng\n';
    expect(unifiedDiff(before, after, 'x.txt')).toBe(
      '--- a/x.txt\n+++ b/x.txt\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n',
    );
  });

  it('shows a new file as all additions', () => {
    expect(unifiedDiff('', 'one\ntwo\n', 'new.txt')).toBe(
      '--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n',
    );
  });

  it('splits distant changes into hunks', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const after = before.replace('line 2\n', 'LINE 2\n').replace('line 25\n', 'LINE 25\n');
    expect(unifiedDiff(before, after, 'f').match(/^@@/gm)).toHaveLength(2);
  });

  it('always applies back to the new text', () => {
    const text = fc
      .array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 30 })
      .map((ls) => (ls.length ? `${ls.join('\n')}\n` : ''));
    fc.assert(
      fc.property(text, text, (before, after) => {
        expect(applyDiff(before, unifiedDiff(before, after, 'f'))).toBe(after);
      }),
      { numRuns: 300 },
    );
  });
});
