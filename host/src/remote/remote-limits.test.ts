import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { connectDevice, pairDevice, until, waitForState } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';
import { FIRST_BYTE_TIMEOUT_MS, MAX_SOCKETS_PER_ADDRESS } from './lan-listener.js';

let t: TestHost | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  await t?.close();
  t = undefined;
});

/** Another machine on the LAN, as far as the host can tell: a second loopback address. */
const ATTACKER = '127.0.0.2';

function idleWebSocket(url: string): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/rc/ws`, { localAddress: ATTACKER });
  cleanups.push(() => ws.terminate());
  return new Promise((resolve) => {
    ws.on('open', () => resolve(ws));
    ws.on('error', () => resolve(ws));
    ws.on('unexpected-response', () => resolve(ws));
  });
}

describe('connection limits', () => {
  it('keeps letting a phone in while another address holds sockets that never say hello', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE });
    const device = await pairDevice(t);
    const idle = await Promise.all(Array.from({ length: 64 }, () => idleWebSocket(t!.url)));
    expect(idle.filter((ws) => ws.readyState === WebSocket.OPEN).length).toBeGreaterThan(0);
    const { client } = connectDevice(t, device);
    cleanups.push(() => client.stop());
    await waitForState(client, 'open');
    expect((await client.call('host.info', {})).ok).toBe(true);
    expect(t.host.parts.gateway.stats.get('ws:too-many-connections')).toBeGreaterThan(0);
  });

  it('caps the sockets one address may hold, without refusing anyone else', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE });
    const port = Number(new URL(t.url).port);
    const sockets: Socket[] = [];
    const closed: boolean[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_ADDRESS + 5; i++) {
      const socket = createConnection({ host: '127.0.0.1', port, localAddress: ATTACKER });
      const index = sockets.push(socket) - 1;
      closed[index] = false;
      socket.on('close', () => (closed[index] = true));
      socket.on('error', () => undefined);
      cleanups.push(() => socket.destroy());
    }
    await until(() => closed.filter(Boolean).length >= 5, 5000, 'the sockets over the cap to be closed');
    const page = await fetch(`${t.url}/rc/nothing`, { method: 'POST' });
    expect(page.status).toBe(404);
  });

  it('closes sockets that say nothing within the first-byte deadline, not a minute later', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE });
    const port = Number(new URL(t.url).port);
    const closed: boolean[] = [false, false, false];
    closed.forEach((_, i) => {
      const socket = createConnection({ host: '127.0.0.1', port, localAddress: ATTACKER });
      socket.on('close', () => (closed[i] = true));
      socket.on('error', () => undefined);
      cleanups.push(() => socket.destroy());
    });
    expect(FIRST_BYTE_TIMEOUT_MS).toBeLessThanOrEqual(5_000);
    await until(() => closed.every(Boolean), FIRST_BYTE_TIMEOUT_MS + 10_000, 'the silent sockets to be closed');
    expect(t.host.parts.gateway.stats.get('socket:idle')).toBe(3);
    // A phone's requests are answered as ever.
    expect((await fetch(`${t.url}/rc/nothing`, { method: 'POST' })).status).toBe(404);
  }, 30_000);
});
