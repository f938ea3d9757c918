import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
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

/** One `main` landmark on the page, holding every screen shown (one, or two side by side). */
async function expectOneMain(page: Page): Promise<void> {
  await expect(page.getByRole('main')).toHaveCount(1);
  const screens = await page.locator('[data-screen]').count();
  expect(screens).toBeGreaterThan(0);
  await expect(page.getByRole('main').locator('[data-screen]')).toHaveCount(screens);
}

/** `#rrggbb` as a computed style shows it. */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${n >> 16}, ${(n >> 8) & 0xff}, ${n & 0xff})`;
}

test('theme colours agree with the manifest and the page; files arrive compressed, not cached for good', async ({
  page,
}) => {
  const script: { encoding?: string | null; cache?: string | null } = {};
  page.on('response', (r) => {
    if (/\/assets\/index-[^/]+\.js$/.test(r.url())) {
      void r
        .allHeaders()
        .then((h) => Object.assign(script, { encoding: h['content-encoding'], cache: h['cache-control'] }));
    }
  });
  await page.goto(host.url);
  await expect(page.locator('[data-screen="hosts"]')).toBeVisible();
  await expectOneMain(page);

  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  const manifest = (await (await page.request.get(new URL(href!, page.url()).href)).json()) as Record<string, string>;
  const metas = await page
    .locator('meta[name="theme-color"]')
    .evaluateAll((els) =>
      els.map((el) => ({ media: el.getAttribute('media') ?? '', colour: el.getAttribute('content') ?? '' })),
    );
  expect(metas.map((m) => m.media).sort()).toEqual(['(prefers-color-scheme: dark)', '(prefers-color-scheme: light)']);
  const light = metas.find((m) => m.media.includes('light'))!;
  expect(light.colour.toLowerCase()).toBe(manifest.theme_color!.toLowerCase());
  for (const meta of metas) {
    // Each scheme's theme colour is its top bar's, so the status bar runs into it.
    await page.emulateMedia({ colorScheme: meta.media.includes('dark') ? 'dark' : 'light' });
    const topBar = await page
      .locator('.top-bar')
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(topBar, meta.media).toBe(rgb(meta.colour));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
    rgb(manifest.background_color!),
  );

  // Served over plain HTTP here: the hashed script is compressed, and fetched again next time.
  await expect.poll(() => script.encoding).toMatch(/^(br|gzip)$/);
  expect(script.cache).toBe('no-cache');
});

test.describe('on an iPad', () => {
  test.use(device('iPad Pro 11'));

  test('sessions and the open session sit side by side', async ({ page }, testInfo) => {
    await pairThroughLink(page, host);
    await expectOneMain(page);
    await snap(page, testInfo, 'tablet-paired');
    const list = page.locator('[data-pane="list"]');
    const detail = page.locator('[data-pane="detail"]');
    await expect(list.locator('[data-screen="sessions"]')).toBeVisible();
    await expect(detail).toContainText('Choose a session');
    await createSession(page, host, 'Side by side');
    await expect(list.locator('[data-screen="sessions"]')).toBeVisible();
    await expect(detail.locator('[data-screen="session"]')).toBeVisible();
    await expectOneMain(page);
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
    await expectOneMain(page);
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
    await expectOneMain(page);
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

test.describe('on a phone, as the computer answers', () => {
  test.use(device('iPhone 15'));

  test('"New session" stays where it is when the Terminal button comes in beside it', async ({ page, context }) => {
    await pairThroughLink(page, host);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    // Opened with no way to the computer: the screen is drawn before the computer says it offers
    // terminals.
    await context.setOffline(true);
    await page.reload();
    const newSession = page.getByRole('button', { name: 'New session' });
    await expect(newSession).toBeVisible();
    await expect(page.getByRole('button', { name: 'Terminal' })).toHaveCount(0);
    // Where it is in its bar (the offline banner above the bar goes away too).
    const place = () =>
      newSession.evaluate((button) => {
        const b = button.getBoundingClientRect();
        const bar = button.closest('header')!.getBoundingClientRect();
        return { x: b.x - bar.x, y: b.y - bar.y, width: b.width, height: b.height };
      });
    const before = await place();

    await context.setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await expect(page.getByRole('button', { name: 'Terminal' })).toBeVisible();
    expect(await place()).toEqual(before);
  });
});
