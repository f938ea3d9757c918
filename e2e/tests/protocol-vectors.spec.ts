import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { bundleForPage } from '../support/bundle.js';

const require = createRequire(import.meta.url);
const vectors: unknown = JSON.parse(readFileSync(require.resolve('@tether/shared-protocol/test-vectors.json'), 'utf8'));

test('the fixed protocol vectors hold in Chromium', async ({ page }) => {
  const script = await bundleForPage(
    fileURLToPath(new URL('../support/vectors-entry.ts', import.meta.url)),
    'TetherVectors',
  );
  await page.setContent('<!doctype html><title>vectors</title>');
  await page.addScriptTag({ content: script });
  const checks = await page.evaluate((v) => {
    const api = (
      globalThis as unknown as {
        TetherVectors: { checkVectors(v: unknown): { name: string; ok: boolean; detail?: string }[] };
      }
    ).TetherVectors;
    return api.checkVectors(v);
  }, vectors);
  expect(checks.length).toBeGreaterThan(15);
  expect(checks.filter((c) => !c.ok)).toEqual([]);
  // The page really ran in Chromium, not in Node.
  expect(await page.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
});
