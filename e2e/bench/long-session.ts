// `npm run bench -- long-session`: a session of 20,000 events opened cold on an emulated iPad Pro 11
// with its CPU slowed 4×, against one of 1,000 events in the same run. Needs the built app (`npm run
// build`) and Debian's Chromium. Prints figures; asserts nothing.
//
// Making 20,000 events with the model loop takes 4,000 model steps before anything is measured, so
// the sessions come from the host itself: a real host runs a fake model's run of TEMPLATE_STEPS
// tool calls (about five events each) in each session, is stopped, and each session's log is
// appended again, whole and with ids of its own, through the host's own event log
// (host/bench/long-session-fill.ts) until it holds about SIZE events (LONG_SESSION_SIZES=1000,20000
// by default); then the host starts again on the same folder and port, and serves them as it would
// any run's. Per size, in turns, twice, the transcript cache cleared and the page reloaded on the
// session's screen at 4× CPU:
//   loaded, drawn navigation → the app's document loaded, the transcript element drawn (empty)
//   first screen  navigation → the newest event (the last run's closing words) on screen
//   live          navigation → the transcript live (connected, caught up: `data-live="true"`)
//   heap          the page's JS heap once live, after a full collection (CDP Runtime.getHeapUsage)
// Each time is its best round (load from elsewhere only slows a round down). Targets: first screen
// and live ≤ 1 s each; heap ≤ the 1,000-event session's + 10%. With LONG_SESSION_PROFILE=1, the
// last round's opens are profiled (the page's main thread, sampled): the functions with the most
// self time are printed.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { benchRowLine } from '@tether/shared-protocol/testing';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { chromiumLaunchOptions } from '../support/chromium.js';
import { eventually, hostDataDir, tetherJson } from '../support/host-process.js';
import { startLongRunModel } from '../support/long-run-model.js';
import { freePort } from '../support/webkit-driver.js';
import { startCpuProfile } from './cpu-profile.js';
import { CLEAR_TRANSCRIPTS } from './page-scripts.js';

const SIZES = (process.env['LONG_SESSION_SIZES'] ?? '1000,20000').split(',').map(Number);
/** Tool calls in the real run each session starts with (about 55 events), the unit it is lengthened by. */
const TEMPLATE_STEPS = 10;
const ROUNDS = 2;
const RATE = 4;
/** The closing words of the newest run only (every earlier copy's read "THE END, part N"). */
const MARKER = 'THE LAST WORD';
const TARGET_MS = 1000;

// Milliseconds from navigation to: the app's document loaded (its scripts run), the session's
// transcript element drawn (still empty), the newest run's end on screen, the transcript live.
const OPEN_TIMES = `new Promise((resolve) => {
  let drawn, shown, live;
  const check = () => {
    const log = document.querySelector('[role="log"]');
    if (drawn === undefined && log) drawn = performance.now();
    if (shown === undefined && (log?.textContent ?? '').includes(${JSON.stringify(MARKER)})) shown = performance.now();
    if (live === undefined && log?.getAttribute('data-live') === 'true') live = performance.now();
    if (shown === undefined || live === undefined) return requestAnimationFrame(check);
    const loaded = performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? NaN;
    resolve({ loaded, drawn, shown, live });
  };
  check();
})`;

const model = await startLongRunModel(TEMPLATE_STEPS);
const port = await freePort();
const args = ['--max-model-calls', String((TEMPLATE_STEPS + 5) * SIZES.length)];
const first = await startAppHost({ model: `openai-compatible:fake@${model.url}`, port, args });
const browser = await chromium.launch(chromiumLaunchOptions());
let host = first;
try {
  const context = await browser.newContext(device('iPad Pro 11'));
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await pairThroughLink(page, first);
  const list = page.url();
  const sessions: { size: number; id: string; url: string }[] = [];
  for (const size of SIZES) {
    await page.goto(list);
    const id = await createSession(page, first, `Start a run of about ${size} events`);
    sessions.push({ size, id, url: page.url() });
  }
  await eventually(
    async () => {
      const listed = await tetherJson<{ id: string; status: string; lastSeq: number }[]>(first.dataDir, ['sessions']);
      return sessions.every((s) =>
        listed.some((l) => l.id === s.id && l.status === 'idle' && l.lastSeq > TEMPLATE_STEPS),
      )
        ? true
        : undefined;
    },
    10 * 60_000,
    'the runs to finish',
  );
  await first.process.stop();
  const fill = new URL('../../host/bench/long-session-fill.ts', import.meta.url).pathname;
  for (const s of sessions) {
    const filled = spawnSync(
      process.execPath,
      ['--import', 'tsx', fill, join(hostDataDir(first.dataDir), 'tether.db'), s.id, String(s.size), MARKER],
      { cwd: new URL('../../host/bench', import.meta.url).pathname, encoding: 'utf8' },
    );
    if (filled.status !== 0) throw new Error(filled.stderr);
    process.stdout.write(filled.stdout);
  }
  host = await startAppHost({ model: `openai-compatible:fake@${model.url}`, port, args, dataDir: first.dataDir });

  const figures = new Map(SIZES.map((size) => [size, { shown: [] as number[], live: [] as number[], heap: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of sessions) {
      await page.goto(s.url);
      await page.evaluate(CLEAR_TRANSCRIPTS);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
      const profile =
        process.env['LONG_SESSION_PROFILE'] === '1' && round === ROUNDS - 1 ? await startCpuProfile(cdp) : undefined;
      await page.reload();
      const { loaded, drawn, shown, live } =
        await page.evaluate<Record<'loaded' | 'drawn' | 'shown' | 'live', number>>(OPEN_TIMES);
      const top = await profile?.stop();
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await cdp.send('HeapProfiler.collectGarbage');
      const { usedSize } = await cdp.send('Runtime.getHeapUsage');
      const f = figures.get(s.size)!;
      f.shown.push(shown);
      f.live.push(live);
      f.heap = usedSize / 2 ** 20;
      console.log(
        `  round ${round + 1}, ${s.size} events: app loaded ${loaded.toFixed(0)} ms, screen drawn ${drawn.toFixed(0)} ms, ` +
          `first screen ${shown.toFixed(0)} ms, live ${live.toFixed(0)} ms, heap ${f.heap.toFixed(1)} MB`,
      );
      if (top) {
        const total = top.reduce((sum, t) => sum + t.ms, 0);
        console.log(`    profile to live, ${total.toFixed(0)} ms sampled (self time, at ${RATE}× CPU):`);
        for (const t of top.slice(0, 12)) console.log(`      ${t.ms.toFixed(0).padStart(6)} ms  ${t.name}`);
      }
    }
  }
  const base = figures.get(Math.min(...SIZES))!;
  console.log(`cold open on iPad Pro 11 at ${RATE}× CPU (best of ${ROUNDS} rounds; heap after the last):`);
  for (const [size, f] of figures) {
    const shown = Math.min(...f.shown);
    const live = Math.min(...f.live);
    const verdict = (ms: number) => (ms <= TARGET_MS ? 'met' : 'not met');
    console.log(
      `  ${String(size).padStart(6)} events: first screen ${shown.toFixed(0)} ms (≤ ${TARGET_MS}: ${verdict(shown)}), ` +
        `live ${live.toFixed(0)} ms (≤ ${TARGET_MS}: ${verdict(live)}), heap ${f.heap.toFixed(1)} MB ` +
        `(${(f.heap / base.heap).toFixed(2)}× the ${Math.min(...SIZES)}-event session's; ≤ 1.10: ${f.heap <= base.heap * 1.1 ? 'met' : 'not met'})`,
    );
    if (f === base) continue;
    const row = (id: string, label: string, ratio: number, target: number) =>
      console.log(benchRowLine({ id, label, ratio, better: 'lower', target, detail: { shown, live, heapMb: f.heap } }));
    row(
      `long-session.first-screen-4x-${size}`,
      `${size}-event session opened cold, iPad at 4× CPU: first screen, against 1 s`,
      shown / TARGET_MS,
      1,
    );
    row(
      `long-session.live-4x-${size}`,
      `${size}-event session opened cold, iPad at 4× CPU: live, against 1 s`,
      live / TARGET_MS,
      1,
    );
    row(
      `long-session.heap-${size}`,
      `${size}-event session opened cold, iPad: JS heap against the ${Math.min(...SIZES)}-event one's`,
      f.heap / base.heap,
      1.1,
    );
  }
} finally {
  await browser.close();
  await host.stop();
  await model.close();
}
