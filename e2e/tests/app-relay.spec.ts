import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { expectTranscriptMatchesLog } from '../support/app-transcript.js';
import { makeDataDir, removeDataDir, startHost, tetherJson } from '../support/host-process.js';
import type { RelayProcess } from '../support/relay-process.js';
import { startRelay } from '../support/relay-process.js';

const APP_DIR = fileURLToPath(new URL('../../pwa/dist', import.meta.url));

let relay: RelayProcess;
let host: AppHost;

/** A host with `--relay`: relay-only (listening nowhere), or also on 127.0.0.1 serving the app. */
async function hostWithRelay(relayOnly: boolean): Promise<AppHost> {
  const dataDir = makeDataDir();
  mkdirSync(join(dataDir, 'project'));
  const listen = relayOnly ? ['--relay-only'] : ['--bind', '127.0.0.1', '--port', '0'];
  const process = await startHost(dataDir, ['--relay', relay.url, ...listen, '--root', dataDir], {
    TETHER_DEMO_DELAY_MS: '20',
  });
  const linked = await process.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  const listening = relayOnly ? undefined : await process.waitFor((l) => l.event === 'listening');
  return {
    process,
    dataDir,
    url: listening ? String(listening.url) : relay.url,
    pairUrl: String(listening ? listening.pairUrl : linked.pairUrl),
    seenPairRequests: new Set(),
    stop: async () => {
      await process.stop();
      removeDataDir(dataDir);
    },
  };
}

// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a hook names from its first argument
test.beforeEach(async ({}, testInfo) => {
  relay = await startRelay(['--app-dir', APP_DIR]);
  host = await hostWithRelay(!testInfo.title.includes('falls back'));
});

test.afterEach(async () => {
  await host.stop();
  await relay.stop();
});

test.describe('the app from a relay', () => {
  test.use(device('iPhone 15'));

  test('loaded from the relay, it pairs with a relay-only host, follows a session and answers its approval', async ({
    page,
  }, testInfo) => {
    // Everything the page asks for stays on the relay's origin: the app, pairing, the sealed channel.
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(`${relay.url}/`) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url());
    });
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    expect(host.pairUrl.startsWith(`${relay.url}/#pair=`)).toBe(true);
    // Paired on the relay's page, it gets watch and approve unless the person at the computer, who
    // runs this relay, gives it more.
    const request = await pairThroughLink(page, host, { scopes: ['watch', 'approve', 'chat', 'terminal'] });
    expect(request.scopes).toEqual(['watch', 'approve']);
    await expect(page.locator('[data-screen="sessions"] [data-host-path="relay"]')).toBeVisible();

    const sessionId = await createSession(page, host, 'Through the relay, please');
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(transcript.locator('.msg.assistant').first()).toContainText('built-in demo model');
    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    await expect(card.locator('.action')).toHaveText('ls -la');
    // Given chat at the computer, this device's note reaches the agent, so one is offered.
    await expect(card.getByLabel('Note for the agent (optional)')).toBeVisible();
    await snap(page, testInfo, 'phone-relay-approval');
    await card.getByRole('button', { name: 'Allow once' }).click();
    await expect(page.locator('section.approval[data-status="allowed"]')).toBeVisible();
    await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
    await expectTranscriptMatchesLog(page, host, sessionId);

    expect(elsewhere).toEqual([]);
    expect(sockets.length).toBeGreaterThan(0);
    for (const url of sockets) expect(url).toMatch(new RegExp(`^${relay.url.replace('http', 'ws')}/relay/connect/`));
    const devices = await tetherJson<{ label: string }[]>(host.dataDir, ['devices']);
    expect(devices).toEqual([expect.objectContaining({ label: 'iPhone · Safari' })]);

    // Back on the list of computers, the row says which way it is connected.
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.locator('[data-screen="sessions"]')).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.locator('[data-host-id] [data-host-path="relay"]')).toBeVisible();
  });

  test('loaded from the host itself, it falls back to the relay when the host’s address stops answering, with the transcript whole', async ({
    page,
  }) => {
    // Paired on the host's own page: direct, and the pairing reply carried a relay ticket.
    await pairThroughLink(page, host);
    await expect(page.locator('[data-screen="sessions"] [data-host-path="direct"]')).toBeVisible();
    const sessionId = await createSession(page, host, 'Direct first, then the relay');
    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    await expect(card.getByLabel('Note for the agent (optional)')).toBeVisible();

    // The phone leaves home: whatever answers at the host's address now hangs up at once.
    await page.routeWebSocket(/\/rc\/ws$/, (ws) => ws.close({ code: 4000, reason: 'not here' }));
    await page.context().setOffline(true);
    // Offline long enough for the page to hear of it (it then drops its socket), as when the phone
    // leaves home and loses the network for a moment; otherwise the old socket may go on answering.
    await expect(page.locator('[data-banner="offline"]')).toBeVisible();
    await page.context().setOffline(false);
    await expect(page.locator('[data-screen="session"]')).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.locator('[data-screen="sessions"] [data-host-path="relay"]')).toBeVisible({ timeout: 30_000 });
    await page.getByRole('link', { name: /Direct first, then the relay/ }).click();
    await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Allow once' }).click();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
    await expectTranscriptMatchesLog(page, host, sessionId);
  });
});
