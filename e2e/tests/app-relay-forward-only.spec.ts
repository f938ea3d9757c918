import { generateBoxKeyPair, generateDeviceId, sealCall, secureRandom, systemClock } from '@tether/shared-protocol';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink } from '../support/app-host.js';
import { expectTranscriptMatchesLog } from '../support/app-transcript.js';
import { makeDataDir, removeDataDir, startHost } from '../support/host-process.js';
import type { RelayProcess } from '../support/relay-process.js';
import { startRelay } from '../support/relay-process.js';

/**
 * A forward-only relay (`--no-app`): it serves no page and no script, so nobody but the host decides
 * what runs on a phone paired on the host's own page. Away from home that phone still reaches the
 * host through the relay: a WebSocket from the host's page to the relay's origin, which the host's
 * policy allows because it is linked to that relay.
 */

/** A well-formed one-shot call from a device no host knows. */
const strangerCall = () =>
  sealCall(
    {
      deviceId: generateDeviceId(),
      deviceKeys: generateBoxKeyPair(),
      hostBoxPublicKey: generateBoxKeyPair().publicKey,
      clock: systemClock,
      random: secureRandom,
    },
    Uint8Array.of(1),
  ).message;

let relay: RelayProcess;
let host: AppHost;

test.beforeEach(async () => {
  relay = await startRelay(['--no-app']);
  const dataDir = makeDataDir();
  mkdirSync(join(dataDir, 'project'));
  const process = await startHost(
    dataDir,
    ['--relay', relay.url, '--bind', '127.0.0.1', '--port', '0', '--root', dataDir],
    { TETHER_DEMO_DELAY_MS: '20' },
  );
  await process.waitFor((l) => l.event === 'relay' && l.state === 'linked');
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
  await relay.stop();
});

test.describe('a forward-only relay', () => {
  test.use(device('iPhone 15'));

  test('serves no app: every app path is a 404 with nothing that runs', async ({ page }) => {
    for (const path of ['/', '/index.html', '/sw.js', '/manifest.webmanifest', '/assets/index.js']) {
      const response = await page.goto(`${relay.url}${path}`);
      expect(response?.status(), path).toBe(404);
      expect(response?.headers()['content-type'], path).toMatch(/^text\/plain/);
      expect(response?.headers()['content-security-policy'], path).toContain("default-src 'none'");
    }
    expect(await page.locator('script').count()).toBe(0);
  });

  test('a phone paired on the host’s page follows a session through it once the host’s address stops answering', async ({
    page,
  }) => {
    const fromRelay: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(relay.url)) fromRelay.push(r.url());
    });
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));

    // Paired on the host's own page (loopback here; Tailscale or its own certificate in use).
    const request = await pairThroughLink(page, host);
    expect(request.scopes).toEqual(['watch', 'approve', 'chat', 'terminal']);
    await expect(page.locator('[data-screen="sessions"] [data-host-path="direct"]')).toBeVisible();
    const sessionId = await createSession(page, host, 'Direct first, then the forward-only relay');
    await expect(page.locator('section.approval[data-status="pending"]')).toBeVisible();

    // The phone leaves home: the host's own address hangs up at once, the relay is all there is.
    await page.routeWebSocket(/\/rc\/ws$/, (ws) => ws.close({ code: 4000, reason: 'not here' }));
    await page.context().setOffline(true);
    await expect(page.locator('[data-banner="offline"]')).toBeVisible();
    await page.context().setOffline(false);
    await expect(page.locator('[data-screen="session"]')).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.locator('[data-screen="sessions"] [data-host-path="relay"]')).toBeVisible({ timeout: 30_000 });
    await page.getByRole('link', { name: /Direct first, then the forward-only relay/ }).click();
    await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Allow once' }).click();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
    await expectTranscriptMatchesLog(page, host, sessionId);
    const relayWs = relay.url.replace(/^http/, 'ws');
    expect(sockets.some((url) => url.startsWith(`${relayWs}/relay/connect/`))).toBe(true);

    // A one-shot call (what the service worker sends to answer a notification away from home) can
    // go from the host's page to the relay and its answer be read; a pair request cannot: the relay
    // takes those only from its own pages, which is how the computer knows where they came from.
    const hostId = new URL(sockets.find((url) => url.startsWith(relayWs))!).pathname.split('/').at(-1)!;
    const crossOrigin = await page.evaluate(
      async ({ base, id, call }) => {
        const tryFetch = (path: string, type: string, body: BodyInit) =>
          fetch(`${base}/relay/${path}/${id}`, { method: 'POST', headers: { 'content-type': type }, body }).then(
            async (r) => `${r.status} ${(await r.json()) ? 'read' : ''}`,
            () => 'blocked',
          );
        return {
          call: await tryFetch('call', 'application/octet-stream', new Uint8Array(call)),
          pair: await tryFetch('pair', 'application/json', '{}'),
        };
      },
      { base: relay.url, id: hostId, call: [...strangerCall()] },
    );
    expect(crossOrigin).toEqual({ call: '503 read', pair: 'blocked' });

    // From the relay the page took nothing but its WebSocket and that call: no page, no script.
    expect(fromRelay.filter((url) => !url.startsWith(`${relay.url}/relay/`))).toEqual([]);
  });
});
