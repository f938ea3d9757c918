import type { AppHost } from '../support/app-host.js';
import { startRelay } from '../support/relay-process.js';
import { runFinished } from '../support/share-link.js';
import { ShareRig } from '../support/share-rig.js';
import type { WebKitPhone } from '../support/webkit-phone.js';
import { expect, test } from '../support/webkit-test.js';

/**
 * A share link in Safari's engine: opened on a phone that never paired, it follows a long run live
 * through the host, and through a relay that serves the app, with every event once.
 */

const STEPS = 300;
const TRANSCRIPT = '[role="log"][aria-label="Transcript"]';

const rig = new ShareRig();
test.afterEach(() => rig.stop());

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
  const { host, sessionId, made } = await rig.longRun(STEPS);
  await phone.open(made.url);
  await expect.poll(() => phone.shown('[data-screen="viewer"]')).toBe(true);
  await followWhole(phone, host, sessionId);
});

test(`a share link follows a ${STEPS}-step run live through a relay that serves the app`, async ({ phone }) => {
  test.setTimeout(360_000);
  const relay = (rig.relay = await startRelay());
  const { host, sessionId, made } = await rig.longRun(STEPS, relay.url);
  expect(made.url.startsWith(`${relay.url}/#view=1.`)).toBe(true);
  await phone.open(made.url);
  await expect.poll(() => phone.shown('[data-screen="viewer"]')).toBe(true);
  await followWhole(phone, host, sessionId);
});
