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
  // Over plain HTTP a device gets watch and approve unless more is asked for at the computer;
  // this test asks for chat too, to start a session from the phone.
  const request = await pairThroughLink(page, host, { scopes: ['watch', 'approve', 'chat'] });
  expect(request).toMatchObject({ secure: false, scopes: ['watch', 'approve'] });
  // Chromium offers no brotli over plain HTTP: the script comes gzipped, and is not kept for good.
  expect(scripts.length).toBeGreaterThan(0);
  for (const headers of await Promise.all(scripts)) {
    expect(headers['content-encoding']).toBe('gzip');
    expect(headers['cache-control']).toBe('no-cache');
  }
  expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
  // No WebCrypto here: the device key is kept the fallback way, as a raw secret.
  expect(
    await page.evaluate(
      () =>
        new Promise<string[]>((resolve, reject) => {
          const open = indexedDB.open('tether');
          open.onerror = () => reject(new Error('cannot open IndexedDB'));
          open.onsuccess = () => {
            const all = open.result.transaction('hosts').objectStore('hosts').getAll();
            all.onsuccess = () =>
              resolve((all.result as Record<string, unknown>[]).map((row) => typeof row.deviceSecretKey));
          };
        }),
    ),
  ).toEqual(['string']);
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
