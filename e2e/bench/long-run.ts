// `npm run bench -- long-run`: following long runs on emulated iPhone 15 and iPad Pro 11. Needs the
// built app (`npm run build`) and Debian's Chromium. Prints figures; asserts nothing.
//
// For each size (events in the session; LONG_RUN_SIZES=1000,5000 to choose) a real host runs a fake
// model making one tool call per step until the log holds about that many events, while the page,
// on the session screen, is offline. Then, per device, with the CPU at full speed and slowed 4×:
//   catch-up   online again → the newest event ("THE END") on screen; both devices were offline
//              for the whole run, the iPhone catches up at full speed and the iPad slowed 4×
//   open-warm  reload on the session screen, transcript cached → the newest event on screen
//   open-cold  the same with the transcript cache cleared (the host answers from its tail)
//   dom, heap  elements in the document and JS heap (MB) after scrolling back to the first message
//   scroll     with the whole history loaded, from the newest event up a quarter screen per frame (a
//              fast fling, about 10,000 px/s): the time between frames (p50, p95, max) and the
//              renderer's main-thread time per frame, at full speed and slowed 4× (each item drawn
//              anew is measured and the reader's place kept)
//   live       a second run of the same length, a step every LIVE_STEP_MS (hundreds of events a
//              second: far faster than any agent), followed on screen as it happens (iPhone at full
//              speed, iPad slowed 4×): how far the newest step shown is behind the model writing
//              it, sampled every 100 ms (p50, p95, max)
// Targets: newest event in ≤ 500 ms and catch-up ≤ 1 s (≤ 3 s slowed 4×), live never more than
// 1 s behind, DOM and heap flat in size.
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { benchRowLine } from '@tether/shared-protocol/testing';
import { chromium } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, mintPairLink, pairThroughLink, startAppHost } from '../support/app-host.js';
import { chromiumLaunchOptions } from '../support/chromium.js';
import { eventually, tetherJson } from '../support/host-process.js';
import { startLongRunModel } from '../support/long-run-model.js';
import { CLEAR_TRANSCRIPTS } from './page-scripts.js';

const SIZES = (process.env['LONG_RUN_SIZES'] ?? '1000,5000,20000').split(',').map(Number);
/** Events one step of the fake run writes (text, message, tool start and end, summaries), about. */
const EVENTS_PER_STEP = 5;
const DEVICES = ['iPhone 15', 'iPad Pro 11'] as const;
/** Milliseconds between the live run's steps (each about five events). */
const LIVE_STEP_MS = 20;

// Strings, not functions: tsx would wrap named helpers in a `__name` call the page does not have.
const UNTIL_END = `new Promise((resolve) => {
  const t0 = performance.now();
  const check = () => (document.querySelector('[role="log"]')?.textContent ?? '').includes('THE END')
    ? resolve(performance.now() - t0) : requestAnimationFrame(check);
  check();
})`;
const SHOWN_SINCE_NAV = `new Promise((resolve) => {
  const check = () => (document.querySelector('[role="log"]')?.textContent ?? '').includes('THE END')
    ? resolve(performance.now()) : requestAnimationFrame(check);
  check();
})`;
// Every 100 ms: now minus the stamp of the newest step on screen, until the run's end shows.
const LIVE_LAG = `new Promise((resolve) => {
  const lags = [];
  const timer = setInterval(() => {
    const text = document.querySelector('[role="log"]')?.textContent ?? '';
    if (text.includes('THE END')) { clearInterval(timer); resolve(lags); return; }
    const match = /@(\\d{13})/.exec(text.slice(text.lastIndexOf('@')));
    if (match) lags.push(Date.now() - Number(match[1]));
  }, 100);
})`;
// From the bottom, up a quarter screen per animation frame: the frame intervals (ms), 240 at most.
const SCROLL_FRAMES = `new Promise((resolve) => {
  const el = document.querySelector('.transcript-wrap .scroll');
  el.scrollTop = el.scrollHeight;
  const times = [];
  let last = 0;
  const step = (now) => {
    if (last > 0) times.push(now - last);
    last = now;
    if (times.length >= 240 || el.scrollTop <= 0) return resolve(times);
    el.scrollTop -= el.clientHeight / 4;
    requestAnimationFrame(step);
  };
  requestAnimationFrame(() => requestAnimationFrame(step));
})`;

/**
 * The fling at CPU slowdown `rate`: frame intervals (p50/p95/max, ms, paced by the display so
 * noisy on a busy machine) and the renderer's main-thread time per frame (script and layout
 * included, from the DevTools protocol's counters: what the page itself spent, ms).
 */
async function scrollTimes(page: Page, cdp: CDPSession, rate: number): Promise<{ frames: string; busy: string }> {
  await cdp.send('Performance.enable');
  const metrics = async () => {
    const { metrics: list } = await cdp.send('Performance.getMetrics');
    return new Map(list.map((m) => [m.name, m.value]));
  };
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  const before = await metrics();
  const times = (await page.evaluate<number[]>(SCROLL_FRAMES)).sort((a, b) => a - b);
  const after = await metrics();
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  // Seconds in the counters; per frame in ms. TaskDuration covers script, style and layout.
  const per = (name: string) =>
    ((((after.get(name) ?? NaN) - (before.get(name) ?? NaN)) * 1000) / times.length).toFixed(1);
  const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN).toFixed(0);
  return {
    frames: `${at(0.5)}/${at(0.95)}/${at(1)}`,
    busy: `${per('TaskDuration')} (script ${per('ScriptDuration')}, layout ${per('LayoutDuration')})`,
  };
}

async function toStart(page: Page): Promise<void> {
  const log = page.locator('[role="log"]');
  for (let i = 0; i < 2000; i++) {
    await page.locator('.transcript-wrap .scroll').evaluate((el) => el.scrollTo(0, 0));
    await page.waitForTimeout(30);
    const gaps = await log.getAttribute('data-gaps');
    const first = await page
      .locator('.msg.user')
      .first()
      .textContent()
      .catch(() => '');
    const top = await page.locator('.transcript-wrap .scroll').evaluate((el) => el.scrollTop);
    // At the very top: near it the first message is drawn already, a little below the screen.
    if (gaps === '0' && first?.includes('Start the long run') && top === 0) return;
  }
  throw new Error('never reached the first message');
}

async function openTimes(page: Page, cdp: CDPSession, rate: number): Promise<[number, number]> {
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  await page.reload();
  const warm = Number(await page.evaluate(SHOWN_SINCE_NAV));
  await page.evaluate(CLEAR_TRANSCRIPTS);
  await page.reload();
  const cold = Number(await page.evaluate(SHOWN_SINCE_NAV));
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  return [warm, cold];
}

async function measureSize(events: number): Promise<void> {
  const steps = Math.ceil(events / EVENTS_PER_STEP);
  const model = await startLongRunModel(steps, { stamp: true });
  const host: AppHost = await startAppHost({
    model: `openai-compatible:fake@${model.url}`,
    args: ['--max-model-calls', String(steps + 10)],
  });
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const contexts: { name: string; context: BrowserContext; page: Page; cdp: CDPSession }[] = [];
    for (const name of DEVICES) {
      const context = await browser.newContext(device(name));
      const page = await context.newPage();
      await pairThroughLink(page, host, contexts.length === 0 ? {} : { link: await mintPairLink(host) });
      contexts.push({ name, context, page, cdp: await context.newCDPSession(page) });
    }
    const first = contexts[0]!;
    const sessionId = await createSession(first.page, host, 'Start the long run');
    const url = first.page.url();
    for (const c of contexts.slice(1)) await c.page.goto(url);
    for (const c of contexts) await c.context.setOffline(true);
    // The list, not the log: a log of thousands of events is too big to poll.
    const lastSeq = await eventually(
      async () => {
        const list = await tetherJson<{ id: string; status: string; lastSeq: number }[]>(host.dataDir, ['sessions']);
        const s = list.find((x) => x.id === sessionId);
        return s && s.status === 'idle' && s.lastSeq > steps ? s.lastSeq : undefined;
      },
      30 * 60_000,
      'the long run to finish',
    );
    const log = { length: lastSeq };
    console.log(`\n## ${log.length} events (${steps} tool calls)`);
    for (const [i, c] of contexts.entries()) {
      const rate = i === 0 ? 1 : 4;
      await c.cdp.send('Emulation.setCPUThrottlingRate', { rate });
      const shown = c.page.evaluate(UNTIL_END);
      await c.context.setOffline(false);
      const catchUp = Number(await shown);
      await c.cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      const [warm, cold] = await openTimes(c.page, c.cdp, 1);
      const [warmSlow, coldSlow] = await openTimes(c.page, c.cdp, 4);
      await toStart(c.page);
      const dom = await c.page.evaluate(() => document.getElementsByTagName('*').length);
      const heap = await c.page.evaluate(
        () =>
          ((performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? NaN) / 2 ** 20,
      );
      const scroll = await scrollTimes(c.page, c.cdp, 1);
      const scrollSlow = await scrollTimes(c.page, c.cdp, 4);
      console.log(
        `${c.name.padEnd(12)} catch-up ${catchUp.toFixed(0)} ms (cpu ${rate}×)  open-warm ${warm.toFixed(0)} / ${warmSlow.toFixed(0)} ms  open-cold ${cold.toFixed(0)} / ${coldSlow.toFixed(0)} ms (cpu 1× / 4×)  dom ${dom}  heap ${heap.toFixed(1)} MB  scroll frames p50/p95/max ${scroll.frames} / ${scrollSlow.frames} ms, main thread per frame ${scroll.busy} / ${scrollSlow.busy} ms (cpu 1× / 4×)`,
      );
      console.log(
        `long-run events=${log.length} device="${c.name}" catchup-ms=${catchUp.toFixed(0)} catchup-cpu=${rate} open-warm-ms=${warm.toFixed(0)} open-cold-ms=${cold.toFixed(0)} open-warm-4x-ms=${warmSlow.toFixed(0)} open-cold-4x-ms=${coldSlow.toFixed(0)} dom=${dom} heap-mb=${heap.toFixed(1)} scroll-frame-ms=${scroll.frames} scroll-frame-4x-ms=${scrollSlow.frames} scroll-busy-ms=${scroll.busy.split(' ')[0]} scroll-busy-4x-ms=${scrollSlow.busy.split(' ')[0]}`,
      );
    }
    model.setStepMs(LIVE_STEP_MS);
    await followLive(contexts, host, log.length);
  } finally {
    await browser.close();
    await host.stop();
    await model.close();
  }
}

/** A second run of the same length, both devices on its screen from the start. */
async function followLive(
  contexts: { name: string; page: Page; cdp: CDPSession }[],
  host: AppHost,
  events: number,
): Promise<void> {
  const [first, ...rest] = contexts;
  await first!.page.goto(first!.page.url().replace(/\/s\/[^/]+$/, ''));
  await createSession(first!.page, host, 'Start the live run');
  for (const c of rest) await c.page.goto(first!.page.url());
  const followed = contexts.map(async (c, i) => {
    const rate = i === 0 ? 1 : 4;
    await c.cdp.send('Emulation.setCPUThrottlingRate', { rate });
    const lags = (await c.page.evaluate<number[]>(LIVE_LAG)).sort((a, b) => a - b);
    await c.cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN;
    if (rate === 4) {
      // Against the 500 ms the issue allows a slowed iPad to fall behind in an unpaced burst.
      console.log(
        benchRowLine({
          id: `long-run.live-behind-4x-${events}`,
          label: `live run of ${events} events followed on ${c.name} with the CPU slowed 4×: most behind, against 500 ms`,
          ratio: at(1) / 500,
          better: 'lower',
          target: 1,
          detail: { p50Ms: at(0.5), p95Ms: at(0.95), maxMs: at(1) },
        }),
      );
    }
    return `${c.name.padEnd(12)} live behind p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  max ${at(1)} ms (cpu ${rate}×, ${lags.length} samples)`;
  });
  for (const line of await Promise.all(followed)) console.log(line);
}

for (const size of SIZES) await measureSize(size);
