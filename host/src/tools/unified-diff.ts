/**
 * A unified diff of two texts, line by line (Myers' O(ND) algorithm), with 3 lines of context:
 * what an approval shows for a file edit or write.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

function diffLines(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) break outer;
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      y--;
      ops.push({ kind: ' ', line: a[--x]! });
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: '+', line: b[--y]! });
      else ops.push({ kind: '-', line: a[--x]! });
    }
  }
  return ops.reverse();
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function unifiedDiff(before: string, after: string, path: string, context = 3): string {
  const ops = diffLines(splitLines(before), splitLines(after));
  const out = [`--- a/${path}`, `+++ b/${path}`];
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  while (i < ops.length) {
    if (ops[i]!.kind === ' ') {
      i++;
      aLine++;
      bLine++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that is within 2×context of the next one.
    const start = Math.max(0, i - context);
    let end = i;
    let lastChange = i;
    while (end < ops.length && (ops[end]!.kind !== ' ' || end - lastChange <= 2 * context)) {
      if (ops[end]!.kind !== ' ') lastChange = end;
      end++;
    }
    end = Math.min(ops.length, lastChange + context + 1);
    const lead = i - start;
    const aStart = aLine - lead;
    const bStart = bLine - lead;
    let aCount = 0;
    let bCount = 0;
    const body: string[] = [];
    for (let j = start; j < end; j++) {
      const op = ops[j]!;
      body.push(`${op.kind}${op.line}`);
      if (op.kind !== '+') aCount++;
      if (op.kind !== '-') bCount++;
    }
    out.push(
      `@@ -${aCount === 0 ? aStart - 1 : aStart},${aCount} +${bCount === 0 ? bStart - 1 : bStart},${bCount} @@`,
      ...body,
    );
    for (let j = i; j < end; j++) {
      if (ops[j]!.kind !== '+') aLine++;
      if (ops[j]!.kind !== '-') bLine++;
    }
    i = end;
  }
  return `${out.join('\n')}\n`;
}
