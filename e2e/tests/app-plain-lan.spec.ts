import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { privateLanAddress } from '../support/app-lan-address.js';
import { snap } from '../support/app-snap.js';
import { expectTranscriptMatchesLog } from '../support/app-transcript.js';

const lan = privateLanAddress();
let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
});

test.use(device('iPhone 15'));

test('plain HTTP on a LAN address: no service worker, a banner says why, and pairing and approvals work', async ({
  page,
}, testInfo) => {
  test.skip(lan === undefined, 'this machine has no private non-loopback address');
  host = await startAppHost({ bind: lan!, demoDelayMs: 5 });
  const scripts: Promise<Record<string, string>>[] = [];
  page.on('response', (r) => {
    if (/\/assets\/index-[^/]+\.js$/.test(r.url())) scripts.push(r.allHeaders());
  });
  await pairThroughLink(page, host);
  // Chromium offers no brotli over plain HTTP: the script comes gzipped, and is not kept for good.
  expect(scripts.length).toBeGreaterThan(0);
  for (const headers of await Promise.all(scripts)) {
    expect(headers['content-encoding']).toBe('gzip');
    expect(headers['cache-control']).toBe('no-cache');
  }
  expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
  await expect(page.locator('[data-banner="insecure"]')).toContainText('no install to the Home Screen');
  await snap(page, testInfo, 'phone-plain-lan');
  const sessionId = await createSession(page, host, 'Over plain HTTP');
  await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Allow once' }).click();
  await expect(page.locator('[data-run-status="done"]')).toBeVisible();
  await expectTranscriptMatchesLog(page, host, sessionId);
  expect(await page.evaluate(() => 'serviceWorker' in navigator && navigator.serviceWorker !== undefined)).toBe(false);
  // No camera here: "Add a computer" offers the paste field and says why.
  await page.goto(`${host.url}/#/add`);
  await expect(page.getByText('The in-app camera needs HTTPS.')).toBeVisible();
});
