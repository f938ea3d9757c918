import { hostname } from 'node:os';
import { chromium, expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import {
  allowPairRequest,
  createSession,
  device,
  expectHostSessions,
  listDevices,
  mintPairLink,
  nextPairRequest,
  pairThroughLink,
  startAppHost,
} from '../support/app-host.js';
import { writeQrVideo } from '../support/app-qr-video.js';
import { snap } from '../support/app-snap.js';
import { chromiumLaunchOptions } from '../support/chromium.js';
import { tether } from '../support/host-process.js';

let host: AppHost;

test.beforeEach(async () => {
  host = await startAppHost();
});

test.afterEach(async () => {
  await host.stop();
});

test.describe('pairing on a phone', () => {
  test.use(device('iPhone 15'));

  test('opening the pairing link pairs once allowed at the computer', async ({ page }, testInfo) => {
    // Nothing leaves for a CDN or a font service: every request stays on the host's origin.
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(`${host.url}/`) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url());
    });
    await page.goto(host.pairUrl);
    const request = await nextPairRequest(host);
    expect(request.label).toBe('iPhone · Safari');
    // The pairing key lives in the fragment only until the app has taken it.
    expect(new URL(page.url()).hash).toBe('#/pair');
    await expect(page.locator('[data-pairing-code]')).toHaveAttribute('data-pairing-code', request.code);
    await allowPairRequest(host, request.id);
    // Allowed: straight on to the computer's sessions, no extra tap.
    await expectHostSessions(page);
    await expect(page.locator('[data-screen="sessions"] h1')).toContainText(hostname());
    await snap(page, testInfo, 'phone-paired');
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.locator('[data-host-id] [data-host-status="connected"]')).toBeVisible();
    await snap(page, testInfo, 'phone-hosts');
    expect(elsewhere).toEqual([]);
  });

  test('a denied pairing says so and can be tried again', async ({ page }) => {
    await page.goto(host.pairUrl);
    const first = await nextPairRequest(host);
    await expect(page.locator('[data-pairing-code]')).toHaveAttribute('data-pairing-code', first.code);
    await expect(page.getByText('Confirm on your computer.')).toBeVisible();
    expect((await tether(host.dataDir, ['pair', 'deny', first.id])).code).toBe(0);
    await expect(page.locator('[data-pairing-error="pair-denied"]')).toBeVisible();
    // The old code is gone: nothing on the phone to compare with a request made by someone else.
    await expect(page.locator('[data-pairing-code]')).toHaveCount(0);
    await expect(page.getByText(first.code.slice(0, 3))).toHaveCount(0);
    await page.getByRole('button', { name: 'Try again' }).click();
    const second = await nextPairRequest(host);
    await expect(page.locator('[data-pairing-code]')).toHaveAttribute('data-pairing-code', second.code);
    await allowPairRequest(host, second.id);
    await expectHostSessions(page);
  });

  test('a pairing link pasted into the tab where the app is open pairs, and leaves the address', async ({ page }) => {
    await page.goto(host.url);
    await expect(page.locator('[data-screen="hosts"]')).toBeVisible();
    // Only the fragment changes: the page is not loaded again.
    const paste = (link: string) => page.evaluate((href) => (location.href = href), link);
    await paste(host.pairUrl);
    const first = await nextPairRequest(host);
    await expect(page.locator('[data-pairing-code]')).toHaveAttribute('data-pairing-code', first.code);
    expect(new URL(page.url()).hash).toBe('#/pair');
    expect((await tether(host.dataDir, ['pair', 'deny', first.id])).code).toBe(0);
    await expect(page.locator('[data-pairing-error="pair-denied"]')).toBeVisible();

    // After a failure, a fresh link from the computer pasted into the same tab pairs.
    const link = await mintPairLink(host);
    await paste(link);
    const second = await nextPairRequest(host);
    await expect(page.locator('[data-pairing-code]')).toHaveAttribute('data-pairing-code', second.code);
    await expect(page.locator('[data-pairing-error]')).toHaveCount(0);
    expect(new URL(page.url()).hash).toBe('#/pair');
    await allowPairRequest(host, second.id);
    await expectHostSessions(page);
    expect(page.url()).not.toContain('pair=');
  });

  test('the device key is a non-extractable CryptoKey, and the app still connects and answers', async ({ page }) => {
    const request = await pairThroughLink(page, host);
    expect(request).toMatchObject({ secure: true, scopes: ['watch', 'approve', 'chat', 'terminal'] });
    const stored = () =>
      page.evaluate(async () => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open('tether');
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(new Error('cannot open IndexedDB'));
        });
        const rows = await new Promise<Record<string, unknown>[]>((resolve, reject) => {
          const all = db.transaction('hosts').objectStore('hosts').getAll();
          all.onsuccess = () => resolve(all.result as Record<string, unknown>[]);
          all.onerror = () => reject(new Error('cannot read hosts'));
        });
        db.close();
        return Promise.all(
          rows.map(async (row) => {
            const key = (row.deviceKey as { privateKey?: unknown } | undefined)?.privateKey;
            return {
              cryptoKey: key instanceof CryptoKey,
              extractable: key instanceof CryptoKey ? key.extractable : undefined,
              algorithm: key instanceof CryptoKey ? key.algorithm.name : undefined,
              exportRefused:
                key instanceof CryptoKey
                  ? await crypto.subtle.exportKey('pkcs8', key).then(
                      () => false,
                      () => true,
                    )
                  : undefined,
              rawSecretStored: 'deviceSecretKey' in row,
            };
          }),
        );
      });
    const expected = {
      cryptoKey: true,
      extractable: false,
      algorithm: 'X25519',
      exportRefused: true,
      rawSecretStored: false,
    };
    expect(await stored()).toEqual([expected]);
    await createSession(page, host, 'With a key that cannot leave WebCrypto');
    await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Allow once' }).click();
    await expect(page.locator('[data-run-status="done"]')).toBeVisible();
    // After a reload the key comes back from IndexedDB as the same kind of key, and connects again.
    await page.goto(`${host.url}/#/`);
    await expect(page.locator('[data-host-id] [data-host-status="connected"]')).toBeVisible();
    expect(await stored()).toEqual([expected]);
  });

  test('a revoked device is told so and returns to pairing', async ({ page }, testInfo) => {
    await pairThroughLink(page, host);
    const [paired] = (await listDevices(host)).filter((d) => !d.revoked);
    expect((await tether(host.dataDir, ['devices', 'revoke', '--', paired!.id])).code).toBe(0);
    await expect(page.locator('[data-screen="add"]')).toBeVisible();
    await expect(page.getByRole('alert')).toContainText('This device was removed from this computer');
    await expect(page.getByRole('heading', { name: /^Pair .+ again$/ })).toBeVisible();
    await snap(page, testInfo, 'phone-revoked');
    // Pairing again with a new link brings the computer back.
    const link = await mintPairLink(host);
    await page.getByLabel('Or paste the pairing link').fill(link);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    const request = await nextPairRequest(host);
    await allowPairRequest(host, request.id);
    await expectHostSessions(page);
  });
});

// Playwright reads the fixtures a test uses from its first parameter's pattern; this one launches its own browser.
// eslint-disable-next-line no-empty-pattern
test('"Add a computer" scans the QR code with the camera', async ({}, testInfo) => {
  const video = testInfo.outputPath('pairing-qr.y4m');
  writeQrVideo(host.pairUrl, video);
  const browser = await chromium.launch(
    chromiumLaunchOptions([
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${video}`,
    ]),
  );
  try {
    const context = await browser.newContext({ ...device('iPhone 15'), permissions: ['camera'] });
    const page = await context.newPage();
    await page.goto(host.url);
    await snap(page, testInfo, 'phone-welcome');
    await page.getByRole('button', { name: 'Add a computer' }).click();
    await page.getByRole('button', { name: 'Scan QR code' }).click();
    const request = await nextPairRequest(host);
    await expect(page.locator('[data-pairing-code]')).toHaveAttribute('data-pairing-code', request.code);
    await allowPairRequest(host, request.id);
    await expectHostSessions(page);
  } finally {
    await browser.close();
  }
});
