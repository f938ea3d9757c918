import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { device, pairThroughLink } from '../support/app-host.js';
import { makeDataDir, removeDataDir, startHost } from '../support/host-process.js';
import type { RelayProcess } from '../support/relay-process.js';
import { startRelay } from '../support/relay-process.js';

/**
 * The computer's row in the app says how each of its relays stands, and why: here one relay is
 * misconfigured (its --public-url names another origin) and the computer is linked through the
 * other. The list is fetched only when the person opens it.
 */

let misconfigured: RelayProcess;
let good: RelayProcess;
let host: AppHost;

test.beforeEach(async () => {
  misconfigured = await startRelay(['--no-app', '--public-url', 'https://relay.elsewhere.example']);
  good = await startRelay(['--no-app']);
  const wrongUrl = `http://127.0.0.1:${misconfigured.port}`;
  const dataDir = makeDataDir();
  mkdirSync(join(dataDir, 'project'));
  const process = await startHost(dataDir, [
    '--relay',
    wrongUrl,
    '--relay',
    good.url,
    '--bind',
    '127.0.0.1',
    '--port',
    '0',
    '--root',
    dataDir,
  ]);
  await process.waitFor((l) => l.event === 'relay' && l.state === 'linked' && l.url === good.url);
  const listening = await process.waitFor((l) => l.event === 'listening');
  host = {
    process,
    dataDir,
    url: String(listening.url),
    pairUrl: String(listening.pairUrl),
    seenPairRequests: new Set(),
    stop: async () => {
      await process.stop();
      removeDataDir(dataDir);
    },
  };
});

test.afterEach(async () => {
  await host.stop();
  await Promise.all([misconfigured.stop(), good.stop()]);
});

test.describe('the relays of a computer', () => {
  test.use(device('iPhone 15'));

  test('its row lists each relay with its state and why, loaded only when opened', async ({ page }) => {
    const scripts: string[] = [];
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
    await pairThroughLink(page, host);
    await page.goto(`${host.url}/#/`);
    const row = page.locator('[data-host-id]').first();
    await expect(row.locator('[data-host-status="connected"]')).toBeVisible();
    const before = scripts.length;

    await row.getByRole('button', { name: 'Relays' }).click();
    const list = row.getByRole('list', { name: 'Relays' });
    await expect(list.locator('[data-relay-state]')).toHaveCount(2);
    // Its code came with the click, not with the page.
    expect(scripts.slice(before).some((url) => /relay-panel/.test(url))).toBe(true);

    const held = list.locator('[data-relay-state="held"]');
    await expect(held).toContainText(`127.0.0.1:${misconfigured.port}`);
    await expect(held).toContainText('refused this computer');
    await expect(held).toContainText('relay.elsewhere.example');
    await expect(held).toContainText(/Asked again (in \d+ (s|min)|when the computer next moves its link)/);
    const linked = list.locator('[data-relay-state="linked"]');
    await expect(linked).toContainText(good.url);
    await expect(linked).toContainText('in use');

    await row.getByRole('button', { name: 'Done' }).click();
    await expect(list).toBeHidden();
  });
});
