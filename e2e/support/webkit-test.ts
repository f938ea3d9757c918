import type { TestInfo } from '@playwright/test';
import { test as base, expect } from '@playwright/test';
import type { WebKitPhone } from './webkit-phone.js';
import { startWebKitPhone } from './webkit-phone.js';

/**
 * Playwright tests that drive WebKit (Safari's engine) through WebDriver instead of Playwright's
 * own browsers: each test gets its own phone (Xvfb, WebKitWebDriver, MiniBrowser at 390×844),
 * stopped after it. A test fails on any page error the phone saw; a failing one leaves a
 * screenshot among its artifacts.
 */
export const test = base.extend<{ phone: WebKitPhone }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture uses from its first argument
  phone: async ({}, use, testInfo) => {
    const phone = await startWebKitPhone();
    let errors: string[];
    try {
      await use(phone);
      if (testInfo.status !== testInfo.expectedStatus) {
        const path = testInfo.outputPath('webkit-failure.png');
        await phone.screenshot(path).then(
          () => testInfo.attach('webkit-failure', { path, contentType: 'image/png' }),
          () => undefined,
        );
      }
      errors = await phone.pageErrors();
    } finally {
      await phone.stop();
    }
    expect(errors, 'errors in the page').toEqual([]);
  },
});

export { expect };

/** Saves a screenshot of the phone as a test artifact (in the test's output folder, and attached). */
export async function snapPhone(phone: WebKitPhone, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await phone.screenshot(path);
  await testInfo.attach(name, { path, contentType: 'image/png' });
}
