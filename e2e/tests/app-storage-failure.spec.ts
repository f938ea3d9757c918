import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import {
  allowPairRequest,
  createSession,
  device,
  listDevices,
  nextPairRequest,
  pairThroughLink,
  startAppHost,
} from '../support/app-host.js';
import { snap } from '../support/app-snap.js';

let host: AppHost;

test.beforeEach(async () => {
  host = await startAppHost({ demoDelayMs: 5 });
});

test.afterEach(async () => {
  await host.stop();
});

test.use(device('iPhone 15'));

test('a pairing the browser will not save is not reported as done, and the computer forgets the device', async ({
  page,
  context,
}, testInfo) => {
  // The key check passes (its scratch store works); the record itself is refused, as a storage
  // that fills up in between would.
  await context.addInitScript(() => {
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'hosts') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return put.apply(this, args);
    };
  });
  await page.goto(host.pairUrl);
  const request = await nextPairRequest(host);
  await expect(page.locator('[data-pairing-code]')).toHaveAttribute('data-pairing-code', request.code);
  await allowPairRequest(host, request.id);
  const error = page.locator('[data-pairing-error="storage-failed"]');
  await expect(error).toContainText('did not let the app save the pairing');
  await expect(error).toContainText('The computer was told to forget this device');
  await expect(page.getByRole('button', { name: 'Try again' })).toHaveCount(0);
  await expect(page).toHaveURL(/#\/pair$/);
  await snap(page, testInfo, 'phone-pairing-not-kept');
  expect((await listDevices(host)).map((d) => d.revoked)).toEqual([true]);
});

test('where the browser keeps nothing, pairing stops before anything is sent', async ({ page, context }) => {
  await context.addInitScript(() => {
    IDBFactory.prototype.open = () => {
      throw new DOMException('IndexedDB is not available here.', 'InvalidStateError');
    };
  });
  await page.goto(host.pairUrl);
  await expect(page.locator('[data-pairing-error="storage-failed"]')).toContainText('Nothing was paired');
  await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
  expect(host.process.lines.some((line) => line.event === 'pair.request')).toBe(false);
  expect(await listDevices(host)).toEqual([]);
});

test('a later failed write shows a banner with the count, until OK', async ({ page }, testInfo) => {
  await pairThroughLink(page, host);
  const banner = page.locator('[data-banner="storage"]');
  await expect(banner).toHaveCount(0);
  // From now on every session list the app saves is refused (and saves come unasked, too).
  await page.evaluate(() => {
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'sessionLists') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return put.apply(this, args);
    };
  });
  await createSession(page, host, 'Save me if you can');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('could not save a session list');
  await expect(banner).toHaveAttribute('data-failed', /^[1-9]\d*$/);
  await snap(page, testInfo, 'phone-storage-banner');
  // The run now waits on its approval: once the count holds still past a list save's 1 s delay,
  // no save is left to fail before OK.
  await expect(page.locator('section.approval[data-status="pending"]')).toBeVisible();
  let last = -1;
  await expect
    .poll(
      async () => {
        const now = Number(await banner.getAttribute('data-failed'));
        const still = now === last;
        last = now;
        return still;
      },
      { intervals: [1500] },
    )
    .toBe(true);
  const seen = last;
  await banner.getByRole('button', { name: 'OK' }).click();
  await expect(banner).toHaveCount(0);
  // The next failure brings it back: the run goes on once allowed, and its list is saved again.
  await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Allow once' }).click();
  await expect(page.locator('[data-run-status="done"]')).toBeVisible();
  await expect(banner).toBeVisible();
  expect(Number(await banner.getAttribute('data-failed'))).toBeGreaterThan(seen);
});
