import type { Browser, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { device, startAppHost } from '../support/app-host.js';
import { startRelay } from '../support/relay-process.js';
import { runFinished, shareSession, startSessionAtComputer } from '../support/share-link.js';
import { ShareRig } from '../support/share-rig.js';

/**
 * Share links through a relay: one that serves the app (the link opens on its page, so whoever runs
 * it is trusted with what that page shows), and a forward-only one (`--no-app`) behind a link opened
 * on the host's own page, when the host's address does not answer.
 */

const STEPS = 300;

const rig = new ShareRig();
test.afterEach(() => rig.stop());

async function viewerPage(browser: Browser, url: string, before?: (page: Page) => Promise<void>) {
  const context = await browser.newContext(device('iPhone 15'));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const sockets: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await before?.(page);
  await page.goto(url);
  await expect(page.locator('[data-screen="viewer"]')).toBeVisible();
  return { page, errors, sockets };
}

async function expectWholeFromStart(page: Page, events: readonly unknown[]): Promise<void> {
  const scroller = page.locator('.transcript-wrap .scroll');
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(transcript.getByText('THE END')).toBeVisible({ timeout: 30_000 });
  await expect(async () => {
    await scroller.evaluate((el) => el.scrollTo(0, 0));
    await expect(transcript).toHaveAttribute('data-gaps', '0', { timeout: 1000 });
    await expect(transcript.locator('.msg.user').first()).toHaveText(/Start the long run/, { timeout: 1000 });
  }).toPass({ timeout: 60_000 });
  await expect(transcript).toHaveAttribute('data-last-seq', String(events.length));
  await expect(transcript).toHaveAttribute('data-applied', String(events.length));
}

test.describe('a share link through a relay', () => {
  test.use(device('iPhone 15'));

  test(`opened on the page of a relay that serves the app, follows a ${STEPS}-step run live, whole`, async ({
    browser,
  }) => {
    test.setTimeout(300_000);
    const relay = (rig.relay = await startRelay());
    const { host, sessionId, made } = await rig.longRun(STEPS, relay.url);
    // The host listens nowhere: the link is on the relay's page, and names the relay.
    expect(made.url.startsWith(`${relay.url}/#view=1.`)).toBe(true);
    expect(made.relayUrl).toBeUndefined();
    const viewer = await viewerPage(browser, made.url);
    await expect(viewer.page.getByRole('log', { name: 'Transcript' })).toHaveAttribute('data-live', 'true');
    const events = await runFinished(host, sessionId);
    await expectWholeFromStart(viewer.page, events);
    const relayWs = relay.url.replace(/^http/, 'ws');
    expect(viewer.sockets.length).toBeGreaterThan(0);
    expect(viewer.sockets.every((url) => url.startsWith(`${relayWs}/relay/connect/`))).toBe(true);
    expect(viewer.errors).toEqual([]);
  });

  test('opened on the host’s page, goes through a forward-only relay when the host’s address does not answer', async ({
    browser,
  }) => {
    const relay = (rig.relay = await startRelay(['--no-app']));
    const host = (rig.host = await startAppHost({ relay: relay.url, demoDelayMs: 20 }));
    const sessionId = await startSessionAtComputer(host, 'Show me how approvals work');
    const made = await shareSession(host, sessionId);
    // On the host's page, naming the relay; and the same link on the relay's page, which serves none.
    expect(made.url.startsWith(`${host.url}/#view=1.`)).toBe(true);
    expect(made.relayUrl?.startsWith(`${relay.url}/#view=1.`)).toBe(true);
    const viewer = await viewerPage(browser, made.url, (page) =>
      // Away from the host's network: its address hangs up at once, the relay is all there is.
      page.routeWebSocket(/\/rc\/ws$/, (ws) => ws.close({ code: 4000, reason: 'not here' })),
    );
    await expect(viewer.page.locator('section.approval[data-status="pending"]')).toBeVisible({ timeout: 30_000 });
    await expect(viewer.page.locator('[data-screen="viewer"]')).toHaveAttribute('data-viewer-state', 'open');
    const relayWs = relay.url.replace(/^http/, 'ws');
    expect(viewer.sockets.some((url) => url.startsWith(`${relayWs}/relay/connect/`))).toBe(true);
    expect(viewer.errors).toEqual([]);
  });
});
