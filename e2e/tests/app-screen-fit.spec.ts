import type { BrowserContextOptions, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { screenFitIssues } from '../support/screen-fit.js';

/**
 * What a phone's and an iPad's screen shows of a session and of a terminal: measured, not compared
 * pixel by pixel (`screenFitIssues`: the top bar's title, chip and buttons each whole and apart,
 * nothing over the transcript's first item, every terminal key reachable with a hint that the key
 * bar scrolls), with screenshots saved for people to look at.
 */

let host: AppHost;

test.beforeEach(async () => {
  host = await startAppHost({ demoDelayMs: 5 });
});

test.afterEach(async () => {
  await host.stop();
});

/** A 390×844 phone (iPhone 12 to 14, the narrowest common iPhone with a notch). */
const PHONE: BrowserContextOptions = { ...device('iPhone 15'), viewport: { width: 390, height: 844 } };
/** A title longer than a phone's width: it must be cut with an ellipsis, not squeezed to nothing. */
const FIRST = 'Tidy the release notes and check every link in the changelog before Friday';

async function expectFits(page: Page, what: string): Promise<void> {
  // Give layout a frame to settle after the last change.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  expect(await page.evaluate(screenFitIssues), what).toEqual([]);
}

/** The demo run stops at its approval: the session is busy, so the bar holds Stop as well. */
async function sessionWaiting(page: Page): Promise<void> {
  await createSession(page, host, FIRST);
  await expect(page.locator('section.approval[data-status="pending"]')).toBeVisible();
  await expect(page.locator('.top-bar [data-session-status="waiting"]')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
}

/** Find, from its button in the top bar: it searches, and its bar covers nothing either. */
async function find(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Find in transcript' }).click();
  await page.getByRole('searchbox', { name: 'Find in transcript' }).fill('changelog');
  await expect(page.locator('.find-count')).toHaveText('1 of 1');
  await expect(page.locator('.transcript .slot.found')).toBeVisible();
  await expectFits(page, 'with Find open');
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('searchbox', { name: 'Find in transcript' })).toHaveCount(0);
}

async function terminal(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Terminal', exact: true }).click();
  await expect(page.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'live');
  const bar = page.locator('.key-bar');
  // Every key is there, and the bar does scroll to the last one.
  await expect(bar.locator('[data-key="right"]')).toHaveCount(1);
  await expect(bar.locator('[data-key="copy"]')).toHaveCount(1);
  await expectFits(page, 'the terminal');
}

test.describe('a 390×844 phone', () => {
  test.use(PHONE);

  test('the session screen: title, chip and buttons whole; nothing over the transcript; every key reachable', async ({
    page,
  }, testInfo) => {
    await pairThroughLink(page, host);
    await expectFits(page, 'the sessions screen');
    await sessionWaiting(page);
    await expectFits(page, 'the session screen');
    await snap(page, testInfo, 'phone-390-session');
    await find(page);
    await page.getByRole('button', { name: 'Back' }).click();
    await terminal(page);
    // → shows whole, left of the hint that more keys follow.
    const hint = page.locator('.key-bar-more[data-side="end"]');
    await expect(hint).toBeVisible();
    const right = await page.locator('.key-bar [data-key="right"]').boundingBox();
    expect(right!.x + right!.width).toBeLessThanOrEqual((await hint.boundingBox())!.x);
    await snap(page, testInfo, 'phone-390-terminal');
    // Scrolled to its end, the hint moves to the start.
    await page.locator('.key-bar').evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect(page.locator('.key-bar-more[data-side="start"]')).toBeVisible();
    await expect(page.locator('.key-bar-more[data-side="end"]')).toBeHidden();
    await expectFits(page, 'the terminal, its key bar scrolled to the end');
    await snap(page, testInfo, 'phone-390-terminal-scrolled');
  });
});

test.describe('an iPad', () => {
  test.use(device('iPad Pro 11'));

  test('the session beside the list, and a terminal: everything whole', async ({ page }, testInfo) => {
    await pairThroughLink(page, host);
    await sessionWaiting(page);
    await expectFits(page, 'the session screen');
    await snap(page, testInfo, 'tablet-session');
    await find(page);
    await page.locator('[data-pane="list"]').getByRole('button', { name: 'Terminal', exact: true }).click();
    await expect(page.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'live');
    await expectFits(page, 'the terminal');
    await snap(page, testInfo, 'tablet-terminal');
  });
});
