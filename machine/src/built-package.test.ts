import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The search worker is a file of its own that the built package must find next to itself (the
// rest of this package's tests run its sources, where start-worker.ts takes another path).
const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tether-built-'));
  writeFileSync(join(root, 'a.txt'), `const x = 1;\n${'a'.repeat(50)}!\n`);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the built package', () => {
  it('runs a regex search on its worker thread, and stops a hostile one at its limit', () => {
    expect(existsSync(built), `${built} is missing: run npm run build`).toBe(true);
    const script = `
      const { LocalContext } = await import(${JSON.stringify(pathToFileURL(built).href)});
      const context = new LocalContext({ regexTimeLimitMs: 1000 });
      const query = (pattern) => ({ pattern, regex: true, caseSensitive: true, maxResults: 10 });
      const found = await context.search(${JSON.stringify(root)}, query('const \\\\w+ ='));
      const hostile = await context.search(${JSON.stringify(root)}, query('^(a+)+$'));
      console.log(JSON.stringify({ found, hostile }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    const { found, hostile } = JSON.parse(out) as {
      found: { ok: boolean; value?: { hits: { path: string; line: number }[] } };
      hostile: { ok: boolean; error?: { code: string } };
    };
    expect(found.value?.hits).toEqual([{ path: 'a.txt', line: 1, text: 'const x = 1;' }]);
    expect(hostile.error?.code).toBe('timeout');
  });
});
