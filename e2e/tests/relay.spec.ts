import type { HostIdentity } from '@tether/shared-protocol';
import {
  answerRelayChallenge,
  decodeRelayFrame,
  encodeConnectRequest,
  encodeRelayFrame,
  generateDeviceId,
  generateHostIdentity,
  relayConnectUrl,
  relayHostLinkUrl,
  signRelayTicket,
  systemClock,
} from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import type { RedisProcess, RelayProcess } from '../support/relay-process.js';
import { startRedis, startRelay } from '../support/relay-process.js';

const APP_DIR = fileURLToPath(new URL('../../pwa/dist', import.meta.url));

const running: { stop(): Promise<unknown> }[] = [];
test.afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop();
});

async function relay(args: string[] = []): Promise<RelayProcess> {
  const r = await startRelay(args);
  running.push(r);
  return r;
}

const bytes = (data: unknown) => {
  const b = data as Buffer;
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

/** A host's link, written only against shared-protocol's relay formats; it echoes every device. */
async function echoHost(url: string, identity: HostIdentity): Promise<WebSocket> {
  const ws = new WebSocket(relayHostLinkUrl(url)!);
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const f = decodeRelayFrame(bytes(data));
      if (!f.ok) return reject(new Error(f.error.message));
      if (f.value.type === 'challenge') {
        const answer = answerRelayChallenge(bytes(data), identity.sign, { relayUrl: url, clock: systemClock });
        if (!answer.ok) return reject(new Error(answer.error.message));
        ws.send(answer.value);
      } else if (f.value.type === 'ready') resolve();
      else if (f.value.type === 'data') {
        const back = encodeRelayFrame({
          type: 'data',
          connId: f.value.connId,
          payload: f.value.payload.slice().reverse(),
        });
        if (back.ok) ws.send(back.value);
      }
    });
    ws.once('close', (code) => reject(new Error(`host link closed (${code})`)));
  });
  return ws;
}

/** A device through the relay: sends `message` after its connect request, resolves with the answer. */
async function deviceRoundTrip(url: string, identity: HostIdentity, message: Uint8Array): Promise<Uint8Array> {
  const ws = new WebSocket(relayConnectUrl(url, identity.hostId)!);
  const answer = new Promise<Uint8Array>((resolve, reject) => {
    ws.once('message', (data) => resolve(bytes(data).slice()));
    ws.once('close', (code, reason) => reject(new Error(`device closed (${code} ${reason.toString()})`)));
  });
  await new Promise((resolve) => ws.once('open', resolve));
  const ticket = signRelayTicket({ deviceId: generateDeviceId(), expiresAt: Date.now() + 60_000 }, identity.sign);
  const first = encodeConnectRequest(identity.sign.publicKey, ticket);
  if (!first.ok) throw new Error(first.error.message);
  ws.send(first.value);
  ws.send(message);
  try {
    return await answer;
  } finally {
    ws.close();
  }
}

test('a relay serves the app from its own origin, with its security headers', async ({ page }) => {
  const r = await relay(['--app-dir', APP_DIR]);
  const response = await page.goto(r.url);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  await expect(page.locator('[data-screen]').first()).toBeVisible();
  expect(await (await fetch(`${r.url}/healthz`)).json()).toEqual({ status: 'ok' });
  expect(await (await fetch(`${r.url}/metrics`)).text()).toContain(`tether_relay_node_info{node="${r.node}"} 1`);
});

test('two relay processes and Redis: a host on one, a device on the other; SIGTERM stops them cleanly', async () => {
  const redis: RedisProcess = await startRedis();
  running.push(redis);
  const a = await relay(['--redis', redis.url]);
  const b = await relay(['--redis', redis.url]);
  const identity = generateHostIdentity();
  const host = await echoHost(a.url, identity);
  expect(await deviceRoundTrip(b.url, identity, Uint8Array.of(1, 2, 3))).toEqual(Uint8Array.of(3, 2, 1));
  host.close();
  running.splice(running.indexOf(b), 1);
  expect(await b.stop('SIGTERM')).toBe(0);
  running.splice(running.indexOf(a), 1);
  expect(await a.stop('SIGINT')).toBe(0);
});
