/** One line of a unified diff, classified for colouring. Text only: it is rendered as text, never HTML. */
export interface DiffLine {
  kind: 'add' | 'del' | 'hunk' | 'meta' | 'context';
  text: string;
}

/** Lines of a diff drawn at most per file: a phone shows the start; the rest is counted. */
export const MAX_DIFF_LINES = 2000;

export function diffLines(diff: string): { lines: DiffLine[]; more: number } {
  const all = diff.split('\n');
  if (all.at(-1) === '') all.pop();
  const lines = all.slice(0, MAX_DIFF_LINES).map((text): DiffLine => {
    if (text.startsWith('+++') || text.startsWith('---')) return { kind: 'meta', text };
    if (text.startsWith('@@')) return { kind: 'hunk', text };
    if (text.startsWith('+')) return { kind: 'add', text };
    if (text.startsWith('-')) return { kind: 'del', text };
    return { kind: 'context', text };
  });
  return { lines, more: Math.max(0, all.length - MAX_DIFF_LINES) };
}
