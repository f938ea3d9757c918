import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { eventually, tetherJson } from '../support/host-process.js';

/**
 * Whether the computer is kept awake, shown on the phone where a run's state is: the same state
 * `tether status` reports, told again each time it changes (a run starting takes the inhibitor).
 */

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test.use(device('iPhone 15'));

interface Status {
  keepAwake: { state: string; message: string };
}

/** The run panel's figures opened (folded on a phone), and its line about the computer. */
async function awakeFigure(page: Page) {
  await page.locator('section.run-glance button.run-line').click();
  return page.locator('section.run-glance .run-awake');
}

test('a run shows whether the computer is kept awake, as `tether status` says it', async ({ page }, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  await createSession(page, host, 'Keep going while I am out');
  await expect(page.locator('section.approval[data-status="pending"]')).toBeVisible();
  // The run waits for its approval: the host holds its inhibitor, or says why it cannot (a machine
  // without a session bus refuses systemd-inhibit, a moment after it starts). The phone learnt
  // 'idle' when it connected; it is told of the change.
  const figure = await awakeFigure(page);
  const status = await eventually(async () => {
    const { keepAwake } = await tetherJson<Status>(host!.dataDir, ['status']);
    const shown = await figure.getAttribute('data-keep-awake', { timeout: 1000 }).catch(() => null);
    return keepAwake.state !== 'idle' && shown === keepAwake.state ? keepAwake : undefined;
  });
  if (status.state === 'holding') await expect(figure).toContainText('kept awake');
  else await expect(figure).toContainText(`may sleep mid-run: ${status.message}`);
  await snap(page, testInfo, 'phone-keep-awake');
});

test('with keeping awake turned off, a run says the computer may sleep, and why', async ({ page }, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5, args: ['--no-keep-awake'] });
  await pairThroughLink(page, host);
  await createSession(page, host, 'Keep going while I am out');
  await expect(page.locator('section.approval[data-status="pending"]')).toBeVisible();
  expect((await tetherJson<Status>(host.dataDir, ['status'])).keepAwake.state).toBe('off');
  // Said on the folded line too, so it is seen without opening the figures.
  await expect(page.locator('section.run-glance button.run-line')).toContainText('Computer may sleep · Running');
  const figure = await awakeFigure(page);
  await expect(figure).toHaveAttribute('data-keep-awake', 'off');
  await expect(figure).toContainText('may sleep mid-run: keeping it awake is turned off there');
  await snap(page, testInfo, 'phone-keep-awake-off');
});
