import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { eventually, tether, tetherJson } from '../support/host-process.js';

let host: AppHost;

test.afterEach(async () => {
  await host.stop();
});

test.use(device('iPhone 15'));

test("a session's notifications are chosen in its menu and at the computer, and each sees the other", async ({
  page,
}) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  const sessionId = await createSession(page, host, 'Tell me when you are done');
  const notifyOf = async () =>
    (await tetherJson<{ id: string; notify?: string }[]>(host.dataDir, ['sessions'])).find((s) => s.id === sessionId)
      ?.notify;
  expect(await notifyOf()).toBe('needs');

  await page.getByLabel('Session menu').click();
  const select = page.getByLabel('Notify me');
  await expect(select).toHaveValue('needs');
  await select.selectOption({ label: 'Also when a run finishes' });
  await eventually(async () => ((await notifyOf()) === 'done' ? true : undefined));

  expect((await tether(host.dataDir, ['sessions', 'notify', sessionId, 'off'])).code).toBe(0);
  await expect(select).toHaveValue('off');
});
