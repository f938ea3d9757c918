import type { AppHost } from '../support/app-host.js';
import { startAppHost } from '../support/app-host.js';
import type { LongRunModel } from '../support/long-run-model.js';
import { startLongRunModel } from '../support/long-run-model.js';
import type { RelayProcess } from '../support/relay-process.js';
import { startRelay } from '../support/relay-process.js';
import { runFinished, shareSession, startSessionAtComputer } from '../support/share-link.js';
import type { WebKitPhone } from '../support/webkit-phone.js';
import { expect, test } from '../support/webkit-test.js';

/**
 * A share link in Safari's engine: opened on a phone that never paired, it follows a long run live
 * through the host, and through a relay that serves the app, with every event once.
 */

const STEPS = 300;
const TRANSCRIPT = '[role="log"][aria-label="Transcript"]';

let relay: RelayProcess | undefined;
let host: AppHost | undefined;
let model: LongRunModel | undefined;

test.afterEach(async () => {
  await host?.stop();
  await relay?.stop();
  await model?.close();
  host = relay = model = undefined;
});

async function longRun(relayOnly?: string): Promise<{ h: AppHost; sessionId: string; url: string }> {
  model = await startLongRunModel(STEPS, { stepMs: 15 });
  const h = (host = await startAppHost({
    model: `openai-compatible:fake@${model.url}`,
    args: ['--max-model-calls', '1000'],
    files: { 'notes.txt': 'a line\n' },
    ...(relayOnly ? { relayOnly } : {}),
  }));
  const sessionId = await startSessionAtComputer(h, 'Start the long run');
  const { url } = await shareSession(h, sessionId);
  return { h, sessionId, url };
}

/** Follows the run to its end, then reads back to the first message: every event, once. */
async function followWhole(phone: WebKitPhone, h: AppHost, sessionId: string): Promise<void> {
  await expect.poll(() => phone.attr(TRANSCRIPT, 'data-live'), { timeout: 30_000 }).toBe('true');
  const events = await runFinished(h, sessionId);
  expect(events.length).toBeGreaterThan(1500);
  await expect.poll(() => phone.attr(TRANSCRIPT, 'data-last-seq'), { timeout: 60_000 }).toBe(String(events.length));
  await expect
    .poll(
      async () => {
        await phone.run("document.querySelector('.transcript-wrap .scroll').scrollTop = 0");
        const gaps = await phone.attr(TRANSCRIPT, 'data-gaps');
        const first = await phone.text(`${TRANSCRIPT} .msg.user`);
        return gaps === '0' && /Start the long run/.test(first ?? '');
      },
      { timeout: 90_000 },
    )
    .toBe(true);
  expect(await phone.attr(TRANSCRIPT, 'data-applied')).toBe(String(events.length));
  expect(await phone.attr(TRANSCRIPT, 'data-last-seq')).toBe(String(events.length));
  expect(await phone.shown('.composer')).toBe(false);
}

test(`a share link follows a ${STEPS}-step run live through the host, nothing missing or doubled`, async ({
  phone,
}) => {
  test.setTimeout(360_000);
  const { h, sessionId, url } = await longRun();
  await phone.open(url);
  await expect.poll(() => phone.shown('[data-screen="viewer"]')).toBe(true);
  await followWhole(phone, h, sessionId);
});

test(`a share link follows a ${STEPS}-step run live through a relay that serves the app`, async ({ phone }) => {
  test.setTimeout(360_000);
  relay = await startRelay();
  const { h, sessionId, url } = await longRun(relay.url);
  expect(url.startsWith(`${relay.url}/#view=1.`)).toBe(true);
  await phone.open(url);
  await expect.poll(() => phone.shown('[data-screen="viewer"]')).toBe(true);
  await followWhole(phone, h, sessionId);
});
