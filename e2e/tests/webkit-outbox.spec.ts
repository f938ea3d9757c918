import type { AppHost } from '../support/app-host.js';
import { sessionEvents, startAppHost } from '../support/app-host.js';
import { removeDataDir, startHost } from '../support/host-process.js';
import { pairByLink, startSession } from '../support/webkit-app.js';
import { expect, snapPhone, test } from '../support/webkit-test.js';

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const TRANSCRIPT = '[role="log"][aria-label="Transcript"]';
const PENDING = 'section.approval[data-status="pending"]';

/** `tether start` again on the same data dir and port, as after the computer comes back. */
async function restart(current: AppHost): Promise<AppHost> {
  const port = new URL(current.url).port;
  const process = await startHost(current.dataDir, ['--bind', '127.0.0.1', '--port', port, '--root', current.dataDir], {
    TETHER_DEMO_DELAY_MS: '5',
  });
  await process.waitFor((l) => l.event === 'listening');
  return {
    ...current,
    process,
    stop: async () => {
      await process.stop();
      removeDataDir(current.dataDir);
    },
  };
}

test('typed with the computer gone, kept through a reload, delivered once when it is back', async ({
  phone,
}, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairByLink(phone, host);
  const sessionId = await startSession(phone, 'First message');
  await phone.clickButton('Deny', PENDING);
  await expect.poll(() => phone.shown(`${TRANSCRIPT} [data-run-status="done"]`)).toBe(true);
  await phone.driver.executeAsyncScript('navigator.serviceWorker.ready.then(() => arguments[0]())');

  await host.process.stop();
  await expect
    .poll(() => phone.attr('[data-banner="offline"]', 'data-reason'), { timeout: 30_000 })
    .toBe('unreachable');
  const text = 'Typed in the lift';
  await phone.type('#composer-text', text);
  await phone.clickButton('Send');
  await expect.poll(() => phone.attr('.outbox-item', 'data-outbox-mark')).toBe('waiting');
  expect(await phone.text('.outbox-item')).toContain(text);
  await snapPhone(phone, testInfo, 'webkit-outbox-waiting');

  // The page reloaded with the computer still gone: the message comes back from IndexedDB.
  await phone.reload();
  await expect.poll(() => phone.shown('[data-screen="session"]')).toBe(true);
  await expect.poll(() => phone.attr('.outbox-item', 'data-outbox-mark')).toBe('waiting');

  host = await restart(host);
  await expect
    .poll(() => phone.run<number>(`return document.querySelectorAll('${TRANSCRIPT} .msg.user').length`), {
      timeout: 60_000,
    })
    .toBe(2);
  expect(
    await phone.run<string>(`return document.querySelectorAll('${TRANSCRIPT} .msg.user')[1].textContent`),
  ).toContain(text);
  await expect.poll(() => phone.shown('.outbox-item[data-outbox-mark="waiting"]')).toBe(false);
  const taken = (await sessionEvents(host, sessionId)).filter(
    (e) => e.type === 'message' && e.role === 'user' && e.text === text,
  );
  expect(taken).toHaveLength(1);
});
