import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalContext } from './local-context.js';
import { MAX_REGEX_SEARCHES } from './regex-search.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tether-regex-'));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/**
 * Longest gap between ticks of a 10 ms timer on this thread while the search runs. A blocked
 * event loop shows gaps of seconds (or never ticks again); 200 ms leaves room for a busy machine.
 */
const MAX_TICK_GAP_MS = 200;

async function whileTicking<T>(work: () => Promise<T>): Promise<{ result: T; maxGapMs: number; elapsedMs: number }> {
  const started = performance.now();
  let last = started;
  let maxGapMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 10);
  try {
    const result = await work();
    maxGapMs = Math.max(maxGapMs, performance.now() - last);
    return { result, maxGapMs, elapsedMs: performance.now() - started };
  } finally {
    clearInterval(ticker);
  }
}

describe('a hostile regular expression in a search', () => {
  it('does not freeze the event loop, and ends with a clear error at its time limit', async () => {
    // ^(a+)+$ against a run of a's with something else at the end tries every way of splitting
    // the run before it fails: 2^50 ways here, which would take a very long time.
    writeFileSync(join(root, 'bait.txt'), `${'a'.repeat(50)}!\n`);
    const limitMs = 1000;
    const context = new LocalContext({ regexTimeLimitMs: limitMs });
    const { result, maxGapMs, elapsedMs } = await whileTicking(() =>
      context.search(root, { pattern: '^(a+)+$', regex: true, caseSensitive: true, maxResults: 10 }),
    );
    expect(maxGapMs).toBeLessThan(MAX_TICK_GAP_MS);
    expect(!result.ok && result.error.code).toBe('timeout');
    expect(!result.ok && result.error.message).toMatch(/regular expression took too long/);
    expect(elapsedMs).toBeGreaterThanOrEqual(limitMs - 1);
    expect(elapsedMs).toBeLessThan(limitMs + 5000);
  });

  it(`runs at most ${MAX_REGEX_SEARCHES} at once, and says busy to one more`, async () => {
    writeFileSync(join(root, 'bait.txt'), `${'a'.repeat(50)}!\n`);
    const context = new LocalContext({ regexTimeLimitMs: 1000 });
    const search = () => context.search(root, { pattern: '^(a+)+$', regex: true, caseSensitive: true, maxResults: 10 });
    const ended = await Promise.all(Array.from({ length: MAX_REGEX_SEARCHES + 1 }, search));
    const codes = ended.map((r) => (r.ok ? 'ok' : r.error.code)).sort();
    expect(codes).toEqual(['busy', ...Array<string>(MAX_REGEX_SEARCHES).fill('timeout')]);
    // Their threads are gone: the next one runs again (with time to start a thread on a busy machine).
    const next = await new LocalContext().search(root, {
      pattern: 'a+!',
      regex: true,
      caseSensitive: true,
      maxResults: 10,
    });
    expect(next.ok ? 'ok' : next.error.message).toBe('ok');
  });
});
