// npm run bench -- search
// What running a regex search on its own worker thread costs: the same search over the same tree,
// as a regular expression (worker thread, started per search) and as plain text (this thread,
// the baseline), through the built package. Then one hostile pattern, to show where it stops.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalContext } from '@tether/machine';

const FILES = 200;
const LINES = 200;
const ROUNDS = 20;

const root = mkdtempSync(join(tmpdir(), 'tether-bench-search-'));
for (let f = 0; f < FILES; f++) {
  const dir = join(root, `dir${f % 10}`);
  mkdirSync(dir, { recursive: true });
  const lines = Array.from({ length: LINES }, (_, i) =>
    i % 50 === 0 ? `// TODO: item ${i}` : `export const value${i} = compute(${i}, 'text');`,
  );
  writeFileSync(join(dir, `file${f}.ts`), lines.join('\n'));
}

const context = new LocalContext({ regexTimeLimitMs: 2000 });

async function timed(regex: boolean): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const found = await context.search(root, { pattern: 'TODO', regex, caseSensitive: true, maxResults: 10_000 });
    if (!found.ok || found.value.hits.length !== FILES * (LINES / 50)) throw new Error('unexpected result');
  }
  return (performance.now() - started) / ROUNDS;
}

try {
  await timed(true); // warm up
  const plain = await timed(false);
  const regex = await timed(true);
  console.log(`search of ${FILES} files × ${LINES} lines, mean of ${ROUNDS}:`);
  console.log(`  plain text, this thread (baseline): ${plain.toFixed(1)} ms`);
  console.log(
    `  regex, on a worker thread:          ${regex.toFixed(1)} ms (${(regex / plain).toFixed(2)}× the baseline)`,
  );
  writeFileSync(join(root, 'bait.txt'), `${'a'.repeat(50)}!\n`);
  const started = performance.now();
  const hostile = await context.search(root, { pattern: '^(a+)+$', regex: true, caseSensitive: true, maxResults: 10 });
  const code = hostile.ok ? 'ok' : hostile.error.code;
  console.log(
    `  ^(a+)+$ on 50 a's and a '!': ${code} after ${(performance.now() - started).toFixed(0)} ms (limit 2000 ms)`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
