import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';

let host: AppHost;

test.afterEach(async () => {
  await host.stop();
});

test.use(device('iPhone 15'));

/** The user messages with `text` in the host's log of the session. */
async function userMessages(sessionId: string, text: string): Promise<number> {
  const events = await sessionEvents(host, sessionId);
  return events.filter((e) => e.type === 'message' && e.role === 'user' && e.text === text).length;
}

/** A session whose first run is over (its approval denied), so the next message starts a run. */
async function idleSession(page: Page): Promise<string> {
  const sessionId = await createSession(page, host, 'First message');
  await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByRole('log', { name: 'Transcript' }).locator('[data-run-status="done"]')).toBeVisible();
  return sessionId;
}

async function type(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByRole('button', { name: /^(Send|Queue)$/ }).click();
}

test('typed offline, kept through a reload, delivered once when the computer answers again', async ({
  page,
  context,
}, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  const sessionId = await idleSession(page);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });

  await context.setOffline(true);
  await expect(page.locator('[data-banner="offline"]')).toBeVisible();
  const text = 'Typed on the train';
  await type(page, text);
  const item = page.locator('.outbox-item').filter({ hasText: text });
  await expect(item).toHaveAttribute('data-outbox-mark', 'waiting');
  await expect(item).toContainText('Waiting to send');
  await expect(page.getByLabel('Message', { exact: true })).toHaveValue('');
  await snap(page, testInfo, 'phone-outbox-waiting');

  // The app closed and opened again, still offline: the message is still there, still waiting.
  await page.reload();
  await expect(page.locator('[data-screen="session"]')).toBeVisible();
  await expect(item).toHaveAttribute('data-outbox-mark', 'waiting');
  expect(await userMessages(sessionId, text)).toBe(0);

  await context.setOffline(false);
  await expect(item).toHaveAttribute('data-outbox-mark', 'delivered');
  await expect(item).toContainText('On the computer');
  await expect(page.getByRole('log', { name: 'Transcript' }).locator('.msg.user', { hasText: text })).toHaveCount(1);
  await expect(item).toBeHidden({ timeout: 10_000 });
  expect(await userMessages(sessionId, text)).toBe(1);
});

/** A message this long makes the only frame of its size the page sends. */
const MESSAGE_CHARS = 2000;

test('sent as the link drops: the computer took it, the answer was lost; sent again, it is taken once', async ({
  page,
}) => {
  host = await startAppHost({ demoDelayMs: 5 });
  // The message's frame (sealed, known by its size: the text is long) reaches the computer; the
  // first frame the computer sends after it (the answer, or an event the message caused) is lost
  // with the page's socket: the computer has the message, and the app cannot know.
  let cutAfterNextFrame = false;
  let awaitingAnswer = false;
  let cuts = 0;
  await page.routeWebSocket(/\/rc\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((frame) => {
      server.send(frame);
      if (!cutAfterNextFrame || frame.length < MESSAGE_CHARS) return;
      cutAfterNextFrame = false;
      awaitingAnswer = true;
    });
    server.onMessage((frame) => {
      if (!awaitingAnswer) return ws.send(frame);
      awaitingAnswer = false;
      cuts++;
      void ws.close({ code: 1006, reason: 'link dropped' });
    });
  });
  await pairThroughLink(page, host);
  const sessionId = await idleSession(page);

  const text = `Sent as the tunnel closed. ${'Then more words. '.repeat(MESSAGE_CHARS / 16)}`.trim();
  cutAfterNextFrame = true;
  await type(page, text);
  const item = page.locator('.outbox-item').filter({ hasText: text });
  await expect(item).toHaveAttribute('data-outbox-mark', 'delivered', { timeout: 30_000 });
  expect(cuts).toBe(1);
  // The run it started asks for its approval; denied, the run ends, with no second copy of the
  // message waiting to be taken at the turn's end (that would start another turn, and ask again).
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Deny' }).click();
  await expect(transcript.locator('[data-run-status="done"]')).toHaveCount(2);
  await expect(page.locator('section.approval[data-status="pending"]')).toHaveCount(0);
  await expect(transcript.locator('.msg.user', { hasText: 'Sent as the tunnel closed' })).toHaveCount(1);
  expect(await userMessages(sessionId, text)).toBe(1);
});

test('an approval answer is never kept for later: without the computer it says so at once', async ({
  page,
  context,
}) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  const sessionId = await createSession(page, host, 'Ask me something');
  const card = page.locator('section.approval[data-status="pending"]');
  await expect(card).toBeVisible();

  await context.setOffline(true);
  await expect(page.locator('[data-banner="offline"]')).toBeVisible();
  await card.getByRole('button', { name: 'Allow once' }).click();
  await expect(card.getByRole('alert')).toContainText('the answer was not sent');

  await context.setOffline(false);
  await expect(page.getByRole('log', { name: 'Transcript' })).toHaveAttribute('data-live', 'true');
  // Back online, nothing went by itself: the approval still waits for an answer.
  const events = await sessionEvents(host, sessionId);
  expect(events.filter((e) => e.type === 'approval.resolved')).toHaveLength(0);
  await expect(card).toBeVisible();
});
