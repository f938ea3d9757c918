// `npm run bench -- app-size`: the app's initial JavaScript (what a phone downloads and runs before
// the first screen), gzipped, against its budget, from the build output in pwa/dist.
//
// Initial = the entry scripts index.html names plus everything they import statically, followed
// transitively. Chunks reached only through `import()` (the QR scanner) are lazy and listed apart.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { benchRowLine } from '@tether/shared-protocol/testing';

/** The budget (issue 25): 40 KB of gzipped initial JavaScript. */
const BUDGET_BYTES = 40 * 1024;

const dist = process.env.TETHER_APP_DIST ?? fileURLToPath(new URL('../dist/', import.meta.url));
if (!existsSync(join(dist, 'index.html'))) {
  console.error('pwa/dist/index.html is missing: run `npm run build` first');
  process.exit(2);
}

const gzipped = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const html = readFileSync(join(dist, 'index.html'), 'utf8');
const entries = [
  ...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g),
  ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g),
].map((m) => normalize(join(dist, m[1]!)));

/** Static imports of a built chunk: `import … from "./x.js"` and bare `import "./x.js"`. */
function staticImports(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const specs = [...code.matchAll(/(?:^|[;}\s])import\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+)["']/g)].map((m) => m[1]!);
  return specs.filter((s) => s.startsWith('.')).map((s) => normalize(join(dirname(file), s)));
}

const initial = new Set<string>();
const queue = [...entries];
while (queue.length > 0) {
  const file = queue.pop()!;
  if (initial.has(file) || !file.endsWith('.js')) continue;
  initial.add(file);
  queue.push(...staticImports(file));
}

const allJs = readdirSync(join(dist, 'assets'))
  .filter((f) => f.endsWith('.js'))
  .map((f) => join(dist, 'assets', f));
const lazy = allJs.filter((f) => !initial.has(f));
const css = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => join(dist, m[1]!));

let total = 0;
console.log('initial JavaScript (gzip -9):');
for (const file of initial) {
  const size = gzipped(file);
  total += size;
  console.log(`  ${relative(dist, file).padEnd(40)} ${kb(size)}`);
}
console.log(`  ${'total'.padEnd(40)} ${kb(total)}  (budget ${kb(BUDGET_BYTES)})`);
console.log('lazy JavaScript:');
for (const file of lazy) console.log(`  ${relative(dist, file).padEnd(40)} ${kb(gzipped(file))}`);
for (const file of css) console.log(`css ${relative(dist, file).padEnd(36)} ${kb(gzipped(file))}`);
if (existsSync(join(dist, 'sw.js')))
  console.log(`service worker sw.js${' '.repeat(21)} ${kb(gzipped(join(dist, 'sw.js')))}`);
console.log(`app-size initial-js-gzip-kb=${(total / 1024).toFixed(1)}`);
// A size against its budget: the one figure here that needs no baseline run (gzip is deterministic).
console.log(
  benchRowLine({
    id: 'app-size.initial-js',
    label: 'app initial JavaScript, gzip, against the 40 KB budget',
    ratio: total / BUDGET_BYTES,
    better: 'lower',
    target: 1,
    detail: { initialGzipKB: total / 1024 },
  }),
);
// Over budget is said, not an exit status: CI holds the ratio to bench/baseline.json instead.
if (total > BUDGET_BYTES) console.log(`over budget by ${kb(total - BUDGET_BYTES)}`);
