import { describe, expect, it } from 'vitest';
import { MAX_DIFF_LINES, diffLines } from './diff-lines.js';

describe('diff lines', () => {
  it('classifies a unified diff line by line', () => {
    const { lines, more } = diffLines('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n same\n-old\n+new\n');
    expect(lines.map((l) => l.kind)).toEqual(['meta', 'meta', 'hunk', 'context', 'del', 'add']);
    expect(more).toBe(0);
  });

  it('keeps hostile text as text and bounds the lines drawn', () => {
    const { lines, more } = diffLines(`+<img src=x onerror=alert(1)>\n${' x\n'.repeat(MAX_DIFF_LINES + 5)}`);
    expect(lines[0]).toEqual({ kind: 'add', text: '+<img src=x onerror=alert(1)>' });
    expect(lines).toHaveLength(MAX_DIFF_LINES);
    expect(more).toBe(6);
  });
});
