import type { Clock } from '@tether/shared-protocol';
import { FrameSealer, HandshakeInitiator, secureRandom, systemClock } from '@tether/shared-protocol';
import { WebSocket } from 'ws';
import type { PairedDevice } from './remote-device.js';
import { until } from './remote-device.js';
import type { TestHost } from './test-host.js';

/** The host's device WebSocket address. */
export function wsUrl(t: TestHost): string {
  return `${t.url.replace('http', 'ws')}/rc/ws`;
}

/** A raw socket to the host: what came back, and how it closed. The caller terminates it. */
export function rawSocket(t: TestHost, headers: Record<string, string> = {}) {
  const ws = new WebSocket(wsUrl(t), { headers });
  const received: Uint8Array[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.on('error', () => resolve({ code: -1, reason: 'error' }));
  });
  const opened = new Promise<void>((resolve) => ws.on('open', () => resolve()));
  ws.on('message', (data: Buffer) => received.push(new Uint8Array(data)));
  return { ws, received, closed, opened };
}

export type RawSocket = ReturnType<typeof rawSocket>;

export function initiator(device: PairedDevice, clock: Clock = systemClock) {
  return new HandshakeInitiator({
    deviceId: device.reply.deviceId,
    deviceKeys: device.keys,
    hostBoxPublicKey: device.hostBoxPublicKey,
    clock,
    random: secureRandom,
  });
}

/** The device's handshake done by hand on `socket`: its keys and a sealer for what it sends. */
export async function handshakeRaw(device: PairedDevice, socket: RawSocket) {
  await socket.opened;
  const init = initiator(device);
  const hello = init.hello();
  socket.ws.send(hello);
  await until(() => socket.received.length > 0, 5000, 'the welcome');
  const keys = init.acceptWelcome(socket.received.shift()!);
  if (!keys.ok) throw new Error(keys.error.code);
  return { ...socket, hello, keys: keys.value, sealer: new FrameSealer(keys.value.send) };
}
