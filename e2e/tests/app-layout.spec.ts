import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';

let host: AppHost;

test.beforeEach(async () => {
  host = await startAppHost({ demoDelayMs: 5 });
});

test.afterEach(async () => {
  await host.stop();
});

test.describe('on an iPad', () => {
  test.use(device('iPad Pro 11'));

  test('sessions and the open session sit side by side', async ({ page }, testInfo) => {
    await pairThroughLink(page, host);
    await snap(page, testInfo, 'tablet-paired');
    const list = page.locator('[data-pane="list"]');
    const detail = page.locator('[data-pane="detail"]');
    await expect(list.locator('[data-screen="sessions"]')).toBeVisible();
    await expect(detail).toContainText('Choose a session');
    await createSession(page, host, 'Side by side');
    await expect(list.locator('[data-screen="sessions"]')).toBeVisible();
    await expect(detail.locator('[data-screen="session"]')).toBeVisible();
    await expect(page.locator('section.approval[data-status="pending"]')).toBeVisible();
    await expect(list.locator('[aria-current="page"] .badge')).toHaveText('1');
    await snap(page, testInfo, 'tablet-approval');
    await page.locator('section.approval').getByRole('button', { name: 'Allow for session' }).click();
    await expect(detail.locator('[data-run-status="done"]')).toBeVisible();
    await expect(list.locator('[aria-current="page"]')).toContainText('idle');
    await snap(page, testInfo, 'tablet-session');

    // Keyboard only (an iPad with a keyboard): Tab reaches the composer, which sends.
    await page.getByLabel('Message', { exact: true }).focus();
    await page.keyboard.type('And now?');
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Send' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(detail.locator('.msg.user').last()).toHaveText(/And now\?/);

    await page.goto(`${host.url}/#/waiting`);
    await expect(page.locator('[data-pane="detail"] [data-screen="waiting"]')).toBeVisible();
    await page.goto(`${host.url}/#/`);
    await expect(list.locator('[data-screen="hosts"]')).toBeVisible();
    await snap(page, testInfo, 'tablet-hosts');
  });
});

test.describe('on an iPhone', () => {
  test.use(device('iPhone 15'));

  test('screens stack and Back returns', async ({ page }, testInfo) => {
    await pairThroughLink(page, host);
    await createSession(page, host, 'One screen at a time');
    await expect(page.locator('[data-pane="list"]')).toHaveCount(0);
    await expect(page.locator('[data-screen="session"]')).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.locator('[data-screen="sessions"]')).toBeVisible();
    const row = page.locator('[data-session-id]');
    await expect(row).toHaveCount(1);
    await expect(row.locator('.badge')).toHaveText('1');
    await snap(page, testInfo, 'phone-sessions');
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.locator('[data-screen="hosts"]')).toBeVisible();
    await page.getByRole('link', { name: /Waiting approvals: 1/ }).click();
    const card = page.locator('[data-screen="waiting"] section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    await snap(page, testInfo, 'phone-waiting');
    await card.getByRole('button', { name: 'Deny' }).click();
    await expect(page.getByText('Nothing is waiting for an answer.')).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await page.locator('[data-host-id] a').first().click();
    await row.click();
    await expect(page.locator('section.approval[data-status="denied"]')).toContainText('Denied on this device');
    await expect(page.locator('[data-run-status="done"]')).toBeVisible();
    // The system's dark setting is followed.
    await page.emulateMedia({ colorScheme: 'dark' });
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(15, 18, 22)');
    await snap(page, testInfo, 'phone-session-dark');
  });
});
