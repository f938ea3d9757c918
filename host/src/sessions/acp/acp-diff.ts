import { unifiedDiff } from '../../tools/unified-diff.js';

/**
 * Lines (old plus new) up to which a change is diffed line by line. The line diff's memory grows
 * with the lines times the number of changes, so an agent's rewrite of a large file would cost
 * hundreds of megabytes; past this the changed middle is shown as removed and added whole, which
 * is just as complete, only coarser.
 */
export const MAX_LINE_DIFF_LINES = 2000;

/** Lines of context around the changed middle of a coarse diff, as the line diff uses. */
const CONTEXT = 3;

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

/**
 * A unified diff of an agent's change to a file (`before` is '' for a new file), complete in
 * every case: line by line when small enough, else one hunk replacing the changed middle.
 */
export function agentDiff(before: string, after: string, path: string): string {
  const a = lines(before);
  const b = lines(after);
  if (a.length + b.length <= MAX_LINE_DIFF_LINES) return unifiedDiff(before, after, path);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out = [`--- a/${path}`, `+++ b/${path}`];
  if (head === a.length && head === b.length) return `${out.join('\n')}\n`;
  const start = Math.max(0, head - CONTEXT);
  const aEnd = Math.min(a.length, a.length - tail + CONTEXT);
  const bEnd = Math.min(b.length, b.length - tail + CONTEXT);
  const aCount = aEnd - start;
  const bCount = bEnd - start;
  out.push(`@@ -${aCount === 0 ? start : start + 1},${aCount} +${bCount === 0 ? start : start + 1},${bCount} @@`);
  for (let i = start; i < head; i++) out.push(` ${a[i]}`);
  for (let i = head; i < a.length - tail; i++) out.push(`-${a[i]}`);
  for (let i = head; i < b.length - tail; i++) out.push(`+${b[i]}`);
  for (let i = a.length - tail; i < aEnd; i++) out.push(` ${a[i]}`);
  return `${out.join('\n')}\n`;
}
