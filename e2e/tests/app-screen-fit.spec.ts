import type { BrowserContextOptions, Page, TestInfo } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { screenFitIssues } from '../support/screen-fit.js';
import { tether } from '../support/host-process.js';
import { photoPng } from '../support/test-photo.js';

/**
 * What a phone's and an iPad's screen shows of a session and of a terminal: measured, not compared
 * pixel by pixel (`screenFitIssues`: the top bar's title, chip and buttons each whole and apart,
 * nothing over the transcript's first item, every terminal key reachable with a hint that the key
 * bar scrolls, every control big enough to tap and clear of the others), with screenshots saved
 * for people to look at.
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
  expect.soft(await page.evaluate(screenFitIssues), what).toEqual([]);
}

/**
 * The session screen's parts stacked, none drawn over another, all on screen; the transcript at
 * least 100 px tall (a few lines to read); the message box as wide as `messageWidth`.
 */
async function expectSessionRoom(page: Page, what: string, messageWidth: number): Promise<void> {
  const room = await page.evaluate(() => {
    const parts = ['.top-bar', '.run-glance', '.session-body', '.outbox', '.composer'].flatMap((css) =>
      Array.from(document.querySelectorAll(`[data-screen="session"] ${css}`)).map((el) => {
        const r = el.getBoundingClientRect();
        return { css, top: r.top, bottom: r.bottom };
      }),
    );
    const scroller = document.querySelector('[data-screen="session"] .transcript-wrap > .scroll');
    const box = document.querySelector('[data-screen="session"] #composer-text');
    return {
      parts,
      transcript: scroller?.getBoundingClientRect().height ?? 0,
      message: box?.getBoundingClientRect().width ?? 0,
      viewport: { width: innerWidth, height: innerHeight },
    };
  });
  for (let i = 1; i < room.parts.length; i++) {
    const [above, below] = [room.parts[i - 1]!, room.parts[i]!];
    expect(below.top, `${what}: ${below.css} starts below ${above.css}`).toBeGreaterThanOrEqual(above.bottom - 0.5);
  }
  expect(room.parts.at(-1)!.bottom, `${what}: the composer is on screen`).toBeLessThanOrEqual(
    room.viewport.height + 0.5,
  );
  expect(room.transcript, `${what}: the transcript's height`).toBeGreaterThanOrEqual(100);
  expect(room.message, `${what}: the message box's width`).toBeCloseTo(messageWidth, 0);
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
    // The run's figures are one line until tapped: the approval and the transcript get the room.
    const glance = page.locator('section.run-glance');
    const line = glance.locator('button.run-line');
    await expect(line).toHaveAttribute('aria-expanded', 'false');
    await expect(line).toContainText('1 waiting');
    await expect(glance.getByText('Model calls', { exact: true })).toBeHidden();
    expect((await glance.boundingBox())!.height).toBeLessThanOrEqual(60);
    // Above the transcript: the top bar, the steering chips and that line. Apart from the chips (one
    // row the person steers with), they take at most a quarter of the screen.
    const chips = (await page.locator('[data-steer-bar]').boundingBox())!.height;
    expect((await page.locator('.transcript-wrap > .scroll').boundingBox())!.y - chips).toBeLessThanOrEqual(844 / 4);
    await line.click();
    await expect(line).toHaveAttribute('aria-expanded', 'true');
    await expect(glance.getByText('Model calls', { exact: true })).toBeVisible();
    await expectFits(page, 'the session screen, its figures open');
    await line.click();
    await expect(glance.getByText('Model calls', { exact: true })).toBeHidden();
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

test.describe('an iPad in portrait, paired to watch and approve', () => {
  test.use(device('iPad Pro 11'));

  test('is told it may answer approvals, and the title is not cut beside the buttons', async ({ page }, testInfo) => {
    await pairThroughLink(page, host, { scopes: ['watch', 'approve'] });
    const created = await tether(host.dataDir, ['sessions', 'new', FIRST], { cwd: host.dataDir });
    expect(created.code).toBe(0);
    await page.locator('[data-session-id]').first().click();
    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card.getByRole('button', { name: 'Allow once' })).toBeVisible();
    await expect(page.getByLabel('Message', { exact: true })).toHaveAttribute(
      'placeholder',
      'This device may watch and answer approvals, not send messages',
    );
    // No Stop and no menu: the title and Find and Changes could share a line, with the title cut.
    await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
    await expectFits(page, 'the session screen');
    await snap(page, testInfo, 'tablet-watch-approve');
  });
});

/**
 * Every main screen at one size, measured and photographed: home, a computer's notification
 * settings, its sessions, New session, a session with an approval waiting (and its menu open), the
 * composer with `files` picked, and a terminal.
 */
async function everyScreen(page: Page, testInfo: TestInfo, size: string, files: number): Promise<void> {
  await pairThroughLink(page, host);
  const hostRoute = new URL(page.url()).hash;
  await expectFits(page, 'the sessions screen');
  await snap(page, testInfo, `${size}-sessions`);
  await page.evaluate(() => (location.hash = '#/'));
  await expect(page.locator('[data-screen="hosts"] [data-host-id]')).toBeVisible();
  await expectFits(page, 'home');
  await snap(page, testInfo, `${size}-home`);
  await page.locator('[data-host-id]').getByRole('button', { name: 'Notifications' }).click();
  await expect(page.locator('[data-notifications]')).toBeVisible();
  await expectFits(page, "a computer's settings");
  await snap(page, testInfo, `${size}-settings`);
  await page.evaluate((hash) => (location.hash = hash), hostRoute);
  await expect(page.locator('[data-screen="sessions"]')).toBeVisible();

  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByRole('button', { name: 'Browse folders on the computer' }).click();
  await expect(page.getByRole('list', { name: 'Folders' }).getByRole('button').first()).toBeVisible();
  await expectFits(page, 'New session');
  await snap(page, testInfo, `${size}-new-session`);
  await page.locator('[data-screen="new-session"]').getByRole('button', { name: 'Back' }).click();
  await sessionWaiting(page);
  await expectFits(page, 'a session with an approval waiting');
  await snap(page, testInfo, `${size}-session`);
  const menu = page.locator('summary[aria-label="Session menu"]');
  await menu.click();
  await expect(page.getByLabel('Notify me')).toBeVisible();
  await expectFits(page, "the session's menu");
  await snap(page, testInfo, `${size}-session-menu`);
  await menu.click();

  // One of them with a name longer than the screen is wide: the message box stays as wide.
  const messageWidth = (await page.locator('#composer-text').boundingBox())!.width;
  await page.locator('input[data-attach-input]').setInputFiles(
    Array.from({ length: files }, (_, i) => ({
      name: i === 0 ? `${'whiteboard-after-the-planning-meeting-'.repeat(3)}1.png` : `photo-${i + 1}.png`,
      mimeType: 'image/png',
      buffer: photoPng(32, 24),
    })),
  );
  await expect(page.getByRole('list', { name: 'To send' }).locator('li')).toHaveCount(files);
  await expectFits(page, `the composer with ${files} files`);
  await expectSessionRoom(page, `the composer with ${files} files`, messageWidth);
  await snap(page, testInfo, `${size}-composer-files`);

  await page.getByRole('button', { name: 'Terminal', exact: true }).last().click();
  await expect(page.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'live');
  await expectFits(page, 'the terminal');
  await snap(page, testInfo, `${size}-terminal`);
}

const SIZES: { name: string; use: BrowserContextOptions; files: number }[] = [
  { name: 'phone-390x844', use: PHONE, files: 8 },
  { name: 'phone-393x659', use: { ...device('iPhone 15'), viewport: { width: 393, height: 659 } }, files: 8 },
  { name: 'phone-390x450', use: { ...device('iPhone 15'), viewport: { width: 390, height: 450 } }, files: 3 },
  { name: 'ipad-portrait', use: device('iPad Pro 11'), files: 8 },
  { name: 'ipad-landscape', use: { ...device('iPad Pro 11'), viewport: { width: 1194, height: 834 } }, files: 8 },
];

for (const size of SIZES) {
  test.describe(size.name, () => {
    test.use(size.use);

    test('every main screen: no control over another, each at least 44×44', async ({ page }, testInfo) => {
      test.setTimeout(120_000);
      await everyScreen(page, testInfo, size.name, size.files);
    });
  });
}
