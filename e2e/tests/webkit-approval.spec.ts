import type { AppHost } from '../support/app-host.js';
import { startAppHost } from '../support/app-host.js';
import { tether } from '../support/host-process.js';
import type { WebKitPhone } from '../support/webkit-phone.js';
import { hashOf, pairByLink, startSession } from '../support/webkit-app.js';
import { expect, snapPhone, test } from '../support/webkit-test.js';

/**
 * The iPhone's path to an approval, in Safari's engine: a notification there has no buttons, so a
 * tap opens the app at the approval's card (`#/h/<host>/a/<approval>`, the `navigate` of a
 * declarative message). From a cold start (the page gone, the service worker installed) the card
 * comes first, before anything else the app loads, and one answered elsewhere says so at once.
 */

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const CARD = '[data-screen="approval"] section.approval';

// Pairing, a session and two cold starts of a WebKit page: about 50 s on a busy 2-core machine,
// too close to the default 60 s.
test.describe.configure({ timeout: 150_000 });

/** A session whose demo run waits on its approval (`ls -la`); the card's address. */
async function waitingApproval(phone: WebKitPhone, text: string): Promise<{ id: string; url: string }> {
  await startSession(phone, text);
  await expect.poll(() => phone.shown('section.approval[data-status="pending"]')).toBe(true);
  const id = (await phone.attr('section.approval[data-status="pending"]', 'data-approval-id'))!;
  const hostId = /^#\/h\/([^/]+)\//.exec(await hashOf(phone))![1]!;
  return { id, url: `${host!.url}/#/h/${hostId}/a/${id}` };
}

/** Resource loads (their file names) that began before the card could be answered. */
const LOADED_BEFORE_CARD = `
  const ready = performance.getEntriesByName('tether:approval-ready')[0];
  if (!ready) return null;
  return performance.getEntriesByType('resource')
    .filter((e) => e.startTime < ready.startTime)
    .map((e) => e.name.replace(/^.*\\//, ''));`;

test('a tapped approval opens on its card from a cold start, nothing loaded before it; answered elsewhere, it says so', async ({
  phone,
}, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairByLink(phone, host);
  const first = await waitingApproval(phone, 'List the files, please');
  await phone.driver.executeAsyncScript('navigator.serviceWorker.ready.then(() => arguments[0]())');

  // The app closed, then opened from the notification: a new page, straight on the card.
  await phone.reopen(first.url);
  await expect.poll(() => phone.attr(CARD, 'data-status')).toBe('pending');
  expect(await phone.text(`${CARD} pre.action`)).toBe('ls -la');
  await expect.poll(() => phone.shown(`${CARD} button.primary:not([disabled])`)).toBe(true);
  const loaded = (await phone.run<string[] | null>(LOADED_BEFORE_CARD)) ?? [];
  // The first download and the connection's code (its session feed included); no session screen,
  // Markdown or settings.
  expect(loaded.filter((name) => /session-screen|markdown-view|notifications-panel/.test(name))).toEqual([]);
  expect(loaded.some((name) => /^connection-kit-/.test(name))).toBe(true);
  await snapPhone(phone, testInfo, 'webkit-approval-card');

  // Answered at the computer while the app was closed: the card says so as it opens.
  expect((await tether(host.dataDir, ['approve', first.id, 'deny'])).code).toBe(0);
  await phone.reopen(first.url);
  await expect.poll(() => phone.attr(CARD, 'data-status')).toBe('denied');
  expect(await phone.text(`${CARD} .answer`)).toMatch(/^Denied at the computer/);
  expect(await phone.shown(`${CARD} button.primary`)).toBe(false);
});

test('the card answers: Allow once from a cold start runs the command', async ({ phone }) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairByLink(phone, host);
  const waiting = await waitingApproval(phone, 'List them once more');
  await phone.driver.executeAsyncScript('navigator.serviceWorker.ready.then(() => arguments[0]())');
  await phone.reopen(waiting.url);
  await phone.clickButton('Allow once', CARD);
  await expect.poll(() => phone.attr(CARD, 'data-status')).toBe('allowed');
  expect(await phone.text(`${CARD} .answer`)).toMatch(/^Allowed once on this device/);
  // The card's link leads on to the session, where the run goes on.
  await phone.click(`[data-screen="approval"] .row-meta a`);
  await expect.poll(() => phone.shown('[data-screen="session"] [data-run-status="done"]')).toBe(true);
});
