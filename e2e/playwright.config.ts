import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './support/chromium.js';

export default defineConfig({
  testDir: './tests',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  outputDir: '../test-results',
  reporter: [['list'], ['json', { outputFile: '../.test-output/playwright.json' }]],
  use: {
    launchOptions: chromiumLaunchOptions(),
    screenshot: 'only-on-failure',
    trace: 'off',
  },
  projects: [
    { name: 'chromium', testIgnore: /webkit-[^/]*\.spec\.ts$/ },
    // Safari's engine through WebDriver (support/webkit-phone.ts): these tests use no Playwright page.
    // One WebKit phone at a time; `npm test` runs this project after the Chromium one, on its own.
    { name: 'webkit', testMatch: /webkit-[^/]*\.spec\.ts$/, workers: 1 },
  ],
});
