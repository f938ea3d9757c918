import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { expectTranscriptMatchesLog } from '../support/app-transcript.js';
import { eventually } from '../support/host-process.js';

let host: AppHost;

test.afterEach(async () => {
  await host.stop();
});

test.use(device('iPhone 15'));

test('offline mid-run and back: the transcript catches up with nothing missing or doubled', async ({
  page,
  context,
}, testInfo) => {
  host = await startAppHost({ demoDelayMs: 120 });
  await pairThroughLink(page, host);
  const sessionId = await createSession(page, host, 'Show me how approvals work');
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(transcript.locator('.msg.assistant[data-streaming="true"]')).toBeVisible();

  await context.setOffline(true);
  await expect(page.locator('[data-banner="offline"]')).toBeVisible();
  await expect(transcript).toHaveAttribute('data-live', 'false');
  const seenOffline = Number(await transcript.getAttribute('data-last-seq'));
  // The host goes on without the phone, up to the approval it now waits for.
  const whileAway = await eventually(async () => {
    const events = await sessionEvents(host, sessionId);
    return events.some((e) => e.type === 'approval.requested') ? events : undefined;
  });
  expect(whileAway.length).toBeGreaterThan(seenOffline);
  expect(Number(await transcript.getAttribute('data-last-seq'))).toBe(seenOffline);
  await snap(page, testInfo, 'phone-offline');

  await context.setOffline(false);
  await expect(page.locator('[data-banner="offline"]')).toBeHidden();
  const card = page.locator('section.approval[data-status="pending"]');
  await expect(card).toBeVisible();
  await expect(transcript).toHaveAttribute('data-live', 'true');
  await card.getByRole('button', { name: 'Allow once' }).click();
  await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
  await expectTranscriptMatchesLog(page, host, sessionId);
});

test('reloading offline shows the app shell and the cached transcript at once', async ({ page, context }, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  const sessionId = await createSession(page, host, 'Cache this transcript');
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Allow once' }).click();
  await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
  await expectTranscriptMatchesLog(page, host, sessionId);
  const lastSeq = await transcript.getAttribute('data-last-seq');
  await expect(transcript).toHaveAttribute('data-saved-seq', lastSeq!);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });

  await context.setOffline(true);
  await page.reload();
  await expect(page.locator('[data-banner="offline"]')).toBeVisible();
  await expect(page.locator('[data-screen="session"]')).toBeVisible();
  await expect(transcript).toHaveAttribute('data-last-seq', lastSeq!);
  await expect(transcript.locator('.msg.user')).toContainText('Cache this transcript');
  await expect(transcript.locator('.msg.assistant').last()).toContainText('The command finished');
  await expect(page.locator('[data-screen="session"] .stale')).toHaveText(/not live/);
  await snap(page, testInfo, 'phone-offline-reload');

  await context.setOffline(false);
  await expect(transcript).toHaveAttribute('data-live', 'true');
  await expectTranscriptMatchesLog(page, host, sessionId);
});

test('a browser that still says online after an offline reload: the banner shows all the same', async ({
  page,
  context,
}) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  await createSession(page, host, 'Keep this while away');
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  // As some Chromium builds do for a page the service worker served, and as Safari does on a
  // network with no route to the computer: navigator.onLine stays true and no event fires.
  await context.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'onLine', { get: () => true });
    window.addEventListener('offline', (event) => event.stopImmediatePropagation(), { capture: true });
  });

  await context.setOffline(true);
  await page.reload();
  await expect(page.locator('[data-screen="session"]')).toBeVisible();
  expect(await page.evaluate(() => navigator.onLine)).toBe(true);
  const banner = page.locator('[data-banner="offline"]');
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute('data-reason', 'unreachable');

  await context.setOffline(false);
  await expect(banner).toBeHidden();
  await expect(page.getByRole('log', { name: 'Transcript' })).toHaveAttribute('data-live', 'true');
});

test('network up but the computer does not answer: the banner says so, and goes when it answers', async ({ page }) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  const banner = page.locator('[data-banner="offline"]');
  await expect(banner).toBeHidden();

  // Every sealed connection to the computer is cut before a word, while pages still load.
  let reachable = false;
  await page.routeWebSocket(/\/rc\/ws$/, (ws) => {
    if (reachable) ws.connectToServer();
    else void ws.close({ code: 1006, reason: 'no route' });
  });
  await page.reload();
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute('data-reason', 'unreachable');
  await expect(banner).toContainText("Can't reach your computer");
  expect(await page.evaluate(() => navigator.onLine)).toBe(true);

  reachable = true;
  await expect(banner).toBeHidden();
  await expect(page.locator('[data-host-status="connected"]').first()).toBeVisible();
});
