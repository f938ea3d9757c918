import type { TestInfo } from '@playwright/test';
import { test as base, expect } from '@playwright/test';
import type { PhoneNetwork } from './phone-network.js';
import { startPhoneNetwork } from './phone-network.js';
import type { ScreenSize, WebKitPhone, WebKitPhoneOptions } from './webkit-phone.js';
import { PHONE, startWebKitPhone } from './webkit-phone.js';

/**
 * Playwright tests that drive WebKit (Safari's engine) through WebDriver instead of Playwright's
 * own browsers: each test gets its own phone (Xvfb, WebKitWebDriver, MiniBrowser at 390×844, or
 * the `phoneScreen` a test asks for with `test.use({ phoneScreen })`), stopped after it. A test fails on any
 * page error the phone saw; a failing one leaves a screenshot among its artifacts.
 *
 * `phone` reaches the computer directly. `phoneOnNetwork` sends everything through `network`
 * (`phone-network.ts`), which the test can cut and restore: a phone that loses its route to the
 * computer while the browser still says it is online.
 */
export const test = base.extend<{
  phoneScreen: ScreenSize;
  phone: WebKitPhone;
  network: PhoneNetwork;
  phoneOnNetwork: WebKitPhone;
}>({
  phoneScreen: [PHONE, { option: true }],
  phone: async ({ phoneScreen }, use, testInfo) => {
    await withPhone({ size: phoneScreen }, use, testInfo);
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture uses from its first argument
  network: async ({}, use) => {
    const network = await startPhoneNetwork();
    try {
      await use(network);
    } finally {
      await network.stop();
    }
  },
  phoneOnNetwork: async ({ phoneScreen, network }, use, testInfo) => {
    await withPhone({ size: phoneScreen, proxy: network.proxy }, use, testInfo);
  },
});

async function withPhone(
  options: WebKitPhoneOptions,
  use: (phone: WebKitPhone) => Promise<void>,
  testInfo: TestInfo,
): Promise<void> {
  const phone = await startWebKitPhone(options);
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
}

export { expect };

/** Saves a screenshot of the phone as a test artifact (in the test's output folder, and attached). */
export async function snapPhone(phone: WebKitPhone, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await phone.screenshot(path);
  await testInfo.attach(name, { path, contentType: 'image/png' });
}
