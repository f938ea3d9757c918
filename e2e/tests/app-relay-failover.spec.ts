import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink } from '../support/app-host.js';
import { expectTranscriptMatchesLog } from '../support/app-transcript.js';
import { makeDataDir, removeDataDir, startHost } from '../support/host-process.js';
import type { RelayProcess } from '../support/relay-process.js';
import { startRelay } from '../support/relay-process.js';

let first: RelayProcess;
let spare: RelayProcess;
let host: AppHost;

test.beforeEach(async () => {
  // Two independent forward-only relays; the host is given both, and serves the app itself.
  [first, spare] = await Promise.all([startRelay(['--no-app']), startRelay(['--no-app'])]);
  const dataDir = makeDataDir();
  mkdirSync(join(dataDir, 'project'));
  const process = await startHost(
    dataDir,
    ['--relay', first.url, '--relay', spare.url, '--bind', '127.0.0.1', '--port', '0', '--root', dataDir],
    { TETHER_DEMO_DELAY_MS: '20' },
  );
  const linked = await process.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  expect(linked.url).toBe(first.url);
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
  await Promise.all([first.stop(), spare.stop()]);
});

test.describe('a host with two relays', () => {
  test.use(device('iPhone 15'));

  test('the host’s relay is killed: the host is on the other within 2 s, and the phone goes on through it with the transcript whole', async ({
    page,
  }) => {
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    // Paired on the host's own page: the reply names both relays.
    await pairThroughLink(page, host);
    await expect(page.locator('[data-screen="sessions"] [data-host-path="direct"]')).toBeVisible();
    const sessionId = await createSession(page, host, 'Through one relay, then the other');
    await expect(page.locator('section.approval[data-status="pending"]')).toBeVisible();

    // The phone leaves home, and goes through the host's relay.
    await page.routeWebSocket(/\/rc\/ws$/, (ws) => ws.close({ code: 4000, reason: 'not here' }));
    await page.context().setOffline(true);
    await expect(page.locator('[data-banner="offline"]')).toBeVisible();
    await page.context().setOffline(false);
    await expect(page.locator('[data-screen="session"]')).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.locator('[data-screen="sessions"] [data-host-path="relay"]')).toBeVisible({ timeout: 30_000 });
    const wsOrigin = (relay: RelayProcess) => relay.url.replace(/^http/, 'ws');
    expect(sockets.some((url) => url.startsWith(`${wsOrigin(first)}/relay/connect/`))).toBe(true);

    // The host's relay dies for good.
    const killedAt = Date.now();
    await first.stop('SIGKILL');
    const relinked = await host.process.waitFor(
      (l) => l.event === 'relay' && l.state === 'linked' && l.url === spare.url,
    );
    const failoverMs = Date.now() - killedAt;
    test.info().annotations.push({ type: 'host failover (ms)', description: String(failoverMs) });
    console.log(`host failover after its relay was killed: ${failoverMs} ms`);
    expect(relinked.url).toBe(spare.url);
    expect(failoverMs).toBeLessThan(2000);

    // The phone finds the host through the spare and answers the approval that was waiting.
    await expect
      .poll(() => sockets.some((url) => url.startsWith(`${wsOrigin(spare)}/relay/connect/`)), { timeout: 30_000 })
      .toBe(true);
    await expect(page.locator('[data-screen="sessions"] [data-host-path="relay"]')).toBeVisible({ timeout: 30_000 });
    await page.getByRole('link', { name: /Through one relay, then the other/ }).click();
    await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Allow once' }).click();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
    await expectTranscriptMatchesLog(page, host, sessionId);
  });
});
