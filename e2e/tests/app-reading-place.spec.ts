import type { Browser, BrowserContext, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, mintPairLink, pairThroughLink, startAppHost } from '../support/app-host.js';
import { eventually, tetherJson } from '../support/host-process.js';
import type { LongRunModel } from '../support/long-run-model.js';
import { startLongRunModel } from '../support/long-run-model.js';
import type { Reading } from '../support/read-back.js';
import { leaveBottomRepeatedly, readBack } from '../support/read-back.js';
import { leaveBottom, readUp } from '../support/reader-place.js';

/**
 * Keeping the reader's place while a long session's history comes in. An iPhone and an iPad are on
 * a session that runs for hundreds or a thousand steps while they are offline; back online they
 * catch up with the newest events only, behind a gap. Then each reads back up to the first
 * message, a flick (most of a screen) at a time, and after every flick the item that was on screen
 * must stay exactly where the scroll put it, whatever comes in above it (a history page) or gets
 * measured (items drawn for the first time) — and history must come a page at a time, as it is
 * neared, never all at once.
 */

let host: AppHost | undefined;
let model: LongRunModel | undefined;
let contexts: BrowserContext[] = [];

test.afterEach(async () => {
  for (const context of contexts) await context.close();
  contexts = [];
  await host?.stop();
  await model?.close();
  host = model = undefined;
});

const DEVICES = ['iPhone 15', 'iPad Pro 11'] as const;

/**
 * Errors the page reports on `window` (uncaught, or the browser's own such as a ResizeObserver
 * loop), kept for the test to fail on: Playwright sees only uncaught exceptions.
 */
function collectPageErrors(): void {
  const errors: string[] = [];
  (window as unknown as { __pageErrors: string[] }).__pageErrors = errors;
  window.addEventListener('error', (event) => errors.push(event.message));
}

interface Reader {
  name: string;
  context: BrowserContext;
  page: Page;
}

/** A run of `steps` tool calls made while every device is offline on its session screen. */
async function offlineRun(browser: Browser, steps: number): Promise<Reader[]> {
  // Slow until every reader is offline, so that the run happens while they are (on a loaded machine
  // a quick run would reach them live and leave too little to catch up for a gap), then flat out.
  model = await startLongRunModel(steps, { stepMs: 250 });
  const h = (host = await startAppHost({
    model: `openai-compatible:fake@${model.url}`,
    args: ['--max-model-calls', String(steps + 10)],
  }));
  const readers: Reader[] = [];
  for (const name of DEVICES) {
    const context = await browser.newContext(device(name));
    contexts.push(context);
    await context.addInitScript(collectPageErrors);
    const page = await context.newPage();
    await pairThroughLink(page, h, readers.length === 0 ? {} : { link: await mintPairLink(h) });
    readers.push({ name, context, page });
  }
  const [first, ...rest] = readers;
  const sessionId = await createSession(first!.page, h, 'Start the long run');
  for (const r of rest) await r.page.goto(first!.page.url());
  // Each following it.
  for (const r of readers) {
    const log = r.page.getByRole('log', { name: 'Transcript' });
    await expect.poll(async () => Number(await log.getAttribute('data-items'))).toBeGreaterThan(0);
  }
  for (const r of readers) await r.context.setOffline(true);
  model.setStepMs(0);
  // The list, not the log: a log of thousands of events is too big to poll.
  await eventually(
    async () => {
      const list = await tetherJson<{ id: string; status: string; lastSeq: number }[]>(h.dataDir, ['sessions']);
      const s = list.find((x) => x.id === sessionId);
      return s && s.status === 'idle' && s.lastSeq > steps ? true : undefined;
    },
    10 * 60_000,
    'the long run to finish',
  );
  return readers;
}

/** Back online: the newest events only, the rest behind a gap. */
async function catchUp(reader: Reader): Promise<void> {
  await reader.context.setOffline(false);
  const log = reader.page.getByRole('log', { name: 'Transcript' });
  // What the page showed, for a failure: how many items, and the host's connection chip.
  const state = () =>
    reader.page
      .evaluate(() => ({
        items: document.querySelector('[role="log"]')?.getAttribute('data-items'),
        host: [...document.querySelectorAll('[data-host-status]')].map((el) => el.getAttribute('data-host-status')),
      }))
      .catch(() => ({}));
  const shown = await log
    .getByText('THE END')
    .waitFor({ timeout: 60_000 })
    .then(() => true)
    .catch(() => false);
  expect(shown, `${reader.name}: THE END on screen within 60 s of going online; ${JSON.stringify(await state())}`).toBe(
    true,
  );
  await expect(log).toHaveAttribute('data-gaps', '1');
}

/**
 * Reads up from where the screen is to the first message, a flick at a time (read-back.ts checks
 * the place after each), and checks it got there.
 */
async function readToTop(reader: Reader, label: string): Promise<Reading> {
  const { page } = reader;
  const scroller = page.locator('.transcript-wrap .scroll');
  const by = Math.round(0.8 * (await scroller.evaluate((el) => el.clientHeight)));
  const reading = await readBack(
    () => page.evaluate(readUp, { by, quietFrames: 8, maxMs: 10_000 }),
    `${reader.name}, ${label}`,
  );
  await expect(page.getByRole('log', { name: 'Transcript' }).locator('.msg.user').first()).toHaveText(
    /Start the long run/,
  );
  expect(reading.lastStep, `${reader.name}, ${label}: read back to the first steps`).toBeLessThanOrEqual(3);
  return reading;
}

for (const steps of [100, 1000]) {
  test(`a run of ${steps} steps caught up after being offline: reading back never moves the reader's place`, async ({
    browser,
  }, testInfo) => {
    test.setTimeout(steps * 1000 + 120_000);
    const readers = await offlineRun(browser, steps);
    for (const reader of readers) {
      await catchUp(reader);
      const first = await readToTop(reader, 'first time up');
      // 5 events a step, 300 a page: every page was read, one by one.
      expect(first.pages, reader.name).toBeGreaterThanOrEqual(Math.floor((steps * 5 - 200) / 300));
      testInfo.annotations.push({ type: `${reader.name}, first time up`, description: JSON.stringify(first) });
      // Up again through history already read: the place holds as well.
      await reader.page.getByRole('button', { name: /Jump to latest/ }).click();
      await expect(reader.page.getByRole('log', { name: 'Transcript' }).getByText('THE END')).toBeVisible();
      const again = await readToTop(reader, 'again');
      expect(again.pages, reader.name).toBe(0);
      testInfo.annotations.push({ type: `${reader.name}, again`, description: JSON.stringify(again) });
      const errors = await reader.page.evaluate(() => (window as unknown as { __pageErrors: string[] }).__pageErrors);
      expect(errors, `${reader.name}: errors in the page`).toEqual([]);
    }
  });
}

test('scrolled up while a run streams in, the screen stays where the reader put it', async ({ browser }) => {
  // A step every 15 ms or so: output comes in between any two frames.
  model = await startLongRunModel(2000, { stepMs: 15 });
  host = await startAppHost({ model: `openai-compatible:fake@${model.url}`, args: ['--max-model-calls', '2100'] });
  const context = await browser.newContext(device('iPhone 15'));
  contexts.push(context);
  await context.addInitScript(collectPageErrors);
  const page = await context.newPage();
  await pairThroughLink(page, host);
  await createSession(page, host, 'Start the long run');
  const log = page.getByRole('log', { name: 'Transcript' });
  await expect.poll(async () => Number(await log.getAttribute('data-items'))).toBeGreaterThan(40);
  const steps = await leaveBottomRepeatedly(
    () =>
      page.evaluate(() => {
        for (const b of document.querySelectorAll<HTMLButtonElement>('.transcript-wrap button.jump')) b.click();
      }),
    () => page.evaluate(leaveBottom, { by: 400, frames: 6 }),
    20,
    'iPhone 15',
  );
  // The run was still going: output came in below the reader meanwhile.
  expect(Math.max(...steps.map((s) => s.fromBottom))).toBeGreaterThan(400);
  const errors = await page.evaluate(() => (window as unknown as { __pageErrors: string[] }).__pageErrors);
  expect(errors, 'errors in the page').toEqual([]);
});
