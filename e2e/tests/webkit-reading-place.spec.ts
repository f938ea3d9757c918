import type { AppHost } from '../support/app-host.js';
import { startAppHost } from '../support/app-host.js';
import { attachConnectionReport, installConnectionLog } from '../support/connection-log.js';
import { eventually, tetherJson } from '../support/host-process.js';
import type { LongRunModel } from '../support/long-run-model.js';
import { startLongRunModel } from '../support/long-run-model.js';
import type { PhoneNetwork } from '../support/phone-network.js';
import { leaveBottomRepeatedly, readBack } from '../support/read-back.js';
import type { LeaveStep, ReadStep } from '../support/reader-place.js';
import { leaveBottom, readUp } from '../support/reader-place.js';
import { pairByLink, startSession } from '../support/webkit-app.js';
import type { WebKitPhone } from '../support/webkit-phone.js';
import { expect, test } from '../support/webkit-test.js';

/**
 * Keeping the reader's place in WebKit, which has no CSS scroll anchoring: the app's own anchor
 * must do it all. As `app-reading-place.spec.ts` in Chromium: a phone is on a session that runs
 * for 100 steps while it cannot reach the computer; back in reach it catches up with the newest
 * events only, behind a gap. Then it reads back up to the first message a flick at a time (a
 * scroll by script of most of a screen: WebDriver here has no touch), and after every flick the
 * item that was on screen must stay where the scroll put it whatever comes in above it or gets
 * measured, with history coming a page at a time.
 */

let host: AppHost | undefined;
let model: LongRunModel | undefined;

test.afterEach(async () => {
  await host?.stop();
  await model?.close();
  host = model = undefined;
});

const TRANSCRIPT = '[role="log"][aria-label="Transcript"]';

/**
 * The run, made while the phone is on its session screen with its network cut: the browser still
 * says it is online, so the app learns from its connection failing that the computer is out of
 * reach (reachability.ts).
 */
async function offlineRun(phone: WebKitPhone, network: PhoneNetwork, steps: number): Promise<void> {
  // Slow until the phone is cut off, so that the run happens while it is (as app-reading-place), then
  // flat out.
  model = await startLongRunModel(steps, { stepMs: 250 });
  const h = (host = await startAppHost({
    model: `openai-compatible:fake@${model.url}`,
    args: ['--max-model-calls', String(steps + 10)],
  }));
  await pairByLink(phone, h, h.pairUrl, () => installConnectionLog(phone));
  const sessionId = await startSession(phone, 'Start the long run');
  // Following it.
  await expect.poll(() => phone.attr(TRANSCRIPT, 'data-items').then(Number)).toBeGreaterThan(0);
  network.cut();
  await expect.poll(() => phone.attr('[data-banner="offline"]', 'data-reason')).toBe('unreachable');
  model.setStepMs(0);
  // The list, not the log: a log of hundreds of events is too big to poll.
  await eventually(
    async () => {
      const list = await tetherJson<{ id: string; status: string; lastSeq: number }[]>(h.dataDir, ['sessions']);
      const s = list.find((x) => x.id === sessionId);
      return s && s.status === 'idle' && s.lastSeq > steps ? true : undefined;
    },
    5 * 60_000,
    'the long run to finish',
  );
}

/** Back in reach: the newest events only, the rest behind a gap. */
async function catchUp(phone: WebKitPhone, network: PhoneNetwork): Promise<void> {
  network.restore();
  // What the browser fires when the phone joins a network again: the app dials at once instead of
  // waiting out its backoff (up to 30 s).
  await phone.run("window.dispatchEvent(new Event('online'))");
  await expect.poll(() => phone.shown('[data-banner="offline"]')).toBe(false);
  // On a loaded machine the first dial can fail (a slow handshake): the next comes at the shortest
  // step (the app forgets the backoff the offline time built up when it is back online), and
  // catching up may take a while on a busy phone.
  await expect.poll(() => theEndShown(phone), { timeout: 75_000 }).toBe(true);
  expect(await phone.attr(TRANSCRIPT, 'data-gaps')).toBe('1');
}

/** Whether the run's last reply is on screen. */
function theEndShown(phone: WebKitPhone): Promise<boolean> {
  return phone.run<boolean>(`
    const scroll = document.querySelector('.transcript-wrap .scroll');
    if (!scroll) return false;
    const s = scroll.getBoundingClientRect();
    return [...scroll.querySelectorAll('.msg.assistant')].some((msg) => {
      const r = msg.getBoundingClientRect();
      return msg.textContent.includes('THE END') && r.bottom > s.top && r.top < s.bottom;
    });`);
}

/** One flick up, watched in the page frame by frame (reader-place.ts). */
function flick(phone: WebKitPhone, by: number): Promise<ReadStep> {
  return phone.driver.executeAsyncScript<ReadStep>(
    `const done = arguments[arguments.length - 1];
     (${readUp.toString()})(arguments[0]).then(done);`,
    { by, quietFrames: 8, maxMs: 10_000 },
  );
}

for (const steps of [100, 1000]) {
  test(`a run of ${steps} steps caught up after being offline: reading back never moves the reader's place`, async ({
    phoneOnNetwork: phone,
    network,
  }, testInfo) => {
    test.setTimeout(steps * 300 + 120_000);
    const started = Date.now();
    await offlineRun(phone, network, steps);
    try {
      await catchUp(phone, network);
    } catch (error) {
      // Which connection closed, with what code, closed by whom; what the host refused.
      await attachConnectionReport(phone, host!, testInfo);
      throw error;
    }
    const caughtUp = Date.now();
    const by = Math.round(
      0.8 * (await phone.run<number>("return document.querySelector('.transcript-wrap .scroll').clientHeight")),
    );
    const first = await readBack(() => flick(phone, by), 'first time up');
    // 5 events a step, 300 a page: every page was read, one by one.
    expect(first.pages).toBeGreaterThanOrEqual(Math.floor((steps * 5 - 200) / 300));
    expect(first.lastStep, 'read back to the first steps').toBeLessThanOrEqual(3);
    expect(await phone.text(`${TRANSCRIPT} .msg.user`)).toMatch(/Start the long run/);
    testInfo.annotations.push({ type: 'first time up', description: JSON.stringify(first) });
    // Up again through history already read: the place holds as well.
    await phone.clickButton('Jump to latest ↓');
    await expect.poll(() => theEndShown(phone)).toBe(true);
    const again = await readBack(() => flick(phone, by), 'again');
    expect(again.pages).toBe(0);
    testInfo.annotations.push({ type: 'again', description: JSON.stringify(again) });
    // Where the time goes (ms): the run and catching up, then reading back twice.
    testInfo.annotations.push({
      type: 'times',
      description: JSON.stringify({ runAndCatchUp: caughtUp - started, readBack: Date.now() - caughtUp }),
    });
  });
}

test('scrolled up while a run streams in, the screen stays where the reader put it', async ({ phone }) => {
  // A step every 15 ms or so: output comes in between any two frames.
  model = await startLongRunModel(2000, { stepMs: 15 });
  host = await startAppHost({ model: `openai-compatible:fake@${model.url}`, args: ['--max-model-calls', '2100'] });
  await pairByLink(phone, host);
  await startSession(phone, 'Start the long run');
  await expect.poll(() => phone.attr(TRANSCRIPT, 'data-items').then(Number)).toBeGreaterThan(40);
  const jump = async () => {
    await phone.run("for (const b of document.querySelectorAll('.transcript-wrap button.jump')) b.click();");
  };
  const leave = () =>
    phone.driver.executeAsyncScript<LeaveStep>(
      `const done = arguments[arguments.length - 1];
       (${leaveBottom.toString()})(arguments[0]).then(done);`,
      { by: 400, frames: 6 },
    );
  const steps = await leaveBottomRepeatedly(jump, leave, 20, 'phone');
  // The run was still going: output came in below the reader meanwhile.
  expect(Math.max(...steps.map((s) => s.fromBottom))).toBeGreaterThan(400);
});
