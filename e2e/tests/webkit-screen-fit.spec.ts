import type { AppHost } from '../support/app-host.js';
import { startAppHost } from '../support/app-host.js';
import { screenFitIssues } from '../support/screen-fit.js';
import { pairByLink, startSession } from '../support/webkit-app.js';
import type { WebKitPhone } from '../support/webkit-phone.js';
import { IPAD } from '../support/webkit-phone.js';
import { expect, snapPhone, test } from '../support/webkit-test.js';

/**
 * What a phone's and an iPad's screen shows of a session and of a terminal, in WebKit: the same
 * measures as `app-screen-fit.spec.ts` in Chromium (`screenFitIssues`, run in the page over
 * WebDriver: the top bar's title, chip and buttons each whole and apart, nothing over the
 * transcript's first item, every terminal key reachable with a hint that the key bar scrolls, every
 * control big enough to tap and clear of the others), with screenshots saved for people to look at.
 */

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

/** A title longer than a phone's width: it must be cut with an ellipsis, not squeezed to nothing. */
const FIRST = 'Tidy the release notes and check every link in the changelog before Friday';
const FIND = 'input[type="search"][aria-label="Find in transcript"]';

async function expectFits(phone: WebKitPhone, what: string): Promise<void> {
  // Give layout a frame to settle after the last change.
  const issues = await phone.driver.executeAsyncScript<string[]>(
    `const done = arguments[arguments.length - 1];
     requestAnimationFrame(() => requestAnimationFrame(() => done((${screenFitIssues.toString()})())));`,
  );
  expect(issues, what).toEqual([]);
}

/** Whether a displayed button named `name` is in the top bar. */
function topBarButton(phone: WebKitPhone, name: string): Promise<boolean> {
  return phone.run<boolean>(
    `return [...document.querySelectorAll('.top-bar button')].some(
       (b) => b.textContent.trim() === arguments[0] && b.getBoundingClientRect().width > 0)`,
    name,
  );
}

/** The demo run stops at its approval: the session is busy, so the bar holds Stop as well. */
async function sessionWaiting(phone: WebKitPhone): Promise<void> {
  await startSession(phone, FIRST);
  await expect.poll(() => phone.shown('section.approval[data-status="pending"]')).toBe(true);
  await expect.poll(() => phone.shown('.top-bar [data-session-status="waiting"]')).toBe(true);
  await expect.poll(() => topBarButton(phone, 'Stop')).toBe(true);
}

/** Find, from its button in the top bar: it searches, and its bar covers nothing either. */
async function find(phone: WebKitPhone): Promise<void> {
  await phone.clickButton('Find in transcript', '[data-screen="session"] .top-bar');
  await phone.type(FIND, 'changelog');
  await expect.poll(() => phone.text('.find-count')).toBe('1 of 1');
  await expect.poll(() => phone.shown('.transcript .slot.found')).toBe(true);
  await expectFits(phone, 'with Find open');
  await phone.clickButton('Done', '.find-bar');
  await expect.poll(async () => (await phone.find(FIND)) === undefined).toBe(true);
}

async function terminalLive(phone: WebKitPhone): Promise<void> {
  await expect.poll(() => phone.attr('[data-screen="terminal"]', 'data-terminal-status')).toBe('live');
  // Every key is there, the first and the last of the bar.
  expect(await phone.find('.key-bar [data-key="right"]')).toBeDefined();
  expect(await phone.find('.key-bar [data-key="copy"]')).toBeDefined();
  await expectFits(phone, 'the terminal');
}

/** The page's rect of the first element matching `css`. */
function rectOf(phone: WebKitPhone, css: string): Promise<{ left: number; right: number }> {
  return phone.run(
    `const r = document.querySelector(arguments[0]).getBoundingClientRect();
    return { left: r.left, right: r.right };`,
    css,
  );
}

test('a 390×844 phone: title, chip and buttons whole; nothing over the transcript; every key reachable', async ({
  phone,
}, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  expect(await phone.run<number[]>('return [innerWidth, innerHeight]')).toEqual([390, 844]);
  await pairByLink(phone, host);
  await expectFits(phone, 'the sessions screen');
  await sessionWaiting(phone);
  await expectFits(phone, 'the session screen');
  await snapPhone(phone, testInfo, 'webkit-phone-390-session');
  await find(phone);
  await phone.clickButton('Back', '.top-bar');
  await phone.clickButton('Terminal');
  await terminalLive(phone);
  // → shows whole, left of the hint that more keys follow.
  const hint = '.key-bar-more[data-side="end"]';
  await expect.poll(() => phone.shown(hint)).toBe(true);
  expect((await rectOf(phone, '.key-bar [data-key="right"]')).right).toBeLessThanOrEqual(
    (await rectOf(phone, hint)).left,
  );
  await snapPhone(phone, testInfo, 'webkit-phone-390-terminal');
  // Scrolled to its end, the hint moves to the start.
  await phone.run("const bar = document.querySelector('.key-bar'); bar.scrollTo({ left: bar.scrollWidth });");
  await expect.poll(() => phone.shown('.key-bar-more[data-side="start"]')).toBe(true);
  await expect.poll(() => phone.shown(hint)).toBe(false);
  await expectFits(phone, 'the terminal, its key bar scrolled to the end');
  await snapPhone(phone, testInfo, 'webkit-phone-390-terminal-scrolled');
});

test.describe('an iPad', () => {
  test.use({ phoneScreen: IPAD });

  test('the session beside the list, and a terminal: everything whole', async ({ phone }, testInfo) => {
    host = await startAppHost({ demoDelayMs: 5 });
    expect(await phone.run<number[]>('return [innerWidth, innerHeight]')).toEqual([IPAD.width, IPAD.height]);
    await pairByLink(phone, host);
    await sessionWaiting(phone);
    await expect.poll(() => phone.shown('[data-pane="list"]')).toBe(true);
    await expectFits(phone, 'the session screen');
    await snapPhone(phone, testInfo, 'webkit-tablet-session');
    await find(phone);
    await phone.clickButton('Terminal', '[data-pane="list"]');
    await terminalLive(phone);
    await snapPhone(phone, testInfo, 'webkit-tablet-terminal');
  });
});
