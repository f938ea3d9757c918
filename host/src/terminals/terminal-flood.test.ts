import type { DeviceClient, TetherEvent } from '@tether/shared-protocol';
import { TERMINAL_WINDOW_BYTES, fromBase64Url, terminalOutputBytes } from '@tether/shared-protocol';
import { TERMINAL_BACKLOG_BYTES, TerminalScreen } from '@tether/machine';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDevice, pairDevice, until } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

/** Seconds of flood: long enough for `yes` to fill every buffer on the way many times over. */
const FLOOD_MS = 3000;
/** The slow device acknowledges this often: about two windows a second. */
const ACK_EVERY_MS = 500;
/** Host memory growth allowed over the flood, with generous slack (the test shares the process). */
const MEMORY_SLACK_BYTES = 96 * 1024 * 1024;

let t: TestHost | undefined;
const stops: (() => void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await t?.close();
  t = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a terminal flood', () => {
  it('goes on past a slow device, which gets screens: memory stays bounded, and the session watch goes on', async () => {
    t = await startTestHost({
      remote: LOCAL_REMOTE,
      env: { PATH: process.env.PATH, SHELL: '/bin/sh', HOME: process.env.HOME, PS1: '$ ' },
    });
    const host = t.host;
    const device = await pairDevice(t);
    const { client, events } = connectDevice(t, device);
    stops.push(() => client.stop());
    const now = Date.now();
    host.parts.sessionStore.insert({
      id: 's_flood',
      title: 'watched',
      kind: 'agent',
      place: 'local',
      cwd: t.project,
      model: 'demo',
      status: 'idle',
      createdAt: now,
      updatedAt: now,
    });
    expect(client.watch('s_flood', 0).ok).toBe(true);

    const opened = await client.call('terminals.open', { cwd: t.project, cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    const terminalId = opened.value.terminalId;

    // What the device holds: output checked to follow on from the last bytes or screen, counted
    // but not kept.
    let held = 0;
    let gaps = 0;
    let screens = 0;
    let bytes = 0;
    let tail = '';
    client.onEvent((event: TetherEvent) => {
      if (!('terminalId' in event) || event.terminalId !== terminalId) return;
      if (event.type === 'terminal.screen') {
        screens++;
        held = event.offset;
        tail = new TextDecoder().decode(fromBase64Url(event.data)).slice(-4096);
        return;
      }
      if (event.type !== 'terminal.output') return;
      if (event.offset !== held) gaps++;
      const data = terminalOutputBytes(event.data)!;
      held = event.offset + data.length;
      bytes += data.length;
      tail = (tail + new TextDecoder().decode(data)).slice(-4096);
    });

    expect((await client.call('terminals.attach', { terminalId, after: 0 })).ok).toBe(true);

    await until(() => held > 0, 10_000, 'the prompt');
    await client.call('terminals.ack', { terminalId, offset: held });
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    expect((await client.call('terminals.input', { terminalId, data: 'yes\r' })).ok).toBe(true);

    let acked = held;
    let notices = 0;
    // How far the program got past what the device had acknowledged, at most: a device that held
    // it back would keep this within a window and the backlog.
    const heldBackBound = TERMINAL_WINDOW_BYTES + TERMINAL_BACKLOG_BYTES;
    let ahead = 0;
    const started = Date.now();
    let lastAck = started;
    // FLOOD_MS at least; on a loaded machine, until the program is seen past the bound (or 12 s).
    while (Date.now() - started < FLOOD_MS || (ahead <= heldBackBound && Date.now() - started < 12_000)) {
      host.parts.log.append('s_flood', { type: 'notice', level: 'info', text: `tick ${notices++}` });
      await sleep(100);
      const listed = await client.call('terminals.list', {});
      const end = listed.ok ? (listed.value.terminals[0]?.end ?? 0) : 0;
      ahead = Math.max(ahead, end - acked);
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      if (Date.now() - lastAck >= ACK_EVERY_MS) {
        lastAck = Date.now();
        acked = held;
        await client.call('terminals.ack', { terminalId, offset: acked });
      }
    }

    // The program was not held back by the slow device, which got screens once a window behind;
    // bytes came at most a window per acknowledgement (when the flood paused long enough for it
    // to catch up), not the flood.
    const floodMs = Date.now() - started;
    expect(ahead).toBeGreaterThan(heldBackBound);
    expect(screens).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual((floodMs / ACK_EVERY_MS + 2) * TERMINAL_WINDOW_BYTES);
    expect(gaps).toBe(0);
    expect(rssPeak - rssBefore).toBeLessThan(MEMORY_SLACK_BYTES);

    // Every notice of the watched session arrived, during the flood, in order.
    const ticks = await until(
      () => {
        const seen = events.filter((e) => e.type === 'notice').map((e) => ('text' in e ? e.text : ''));
        return seen.length === notices ? seen : undefined;
      },
      5000,
      'every notice',
    );
    expect(ticks).toEqual(Array.from({ length: notices }, (_, i) => `tick ${i}`));

    // Ctrl-C stops the flood; the shell answers again once the device has caught up.
    await client.call('terminals.input', { terminalId, data: '\x03' });
    await client.call('terminals.input', { terminalId, data: 'echo done-$((40+2))\r' });
    const deadline = Date.now() + 10_000;
    while (!tail.includes('done-42')) {
      if (Date.now() > deadline) throw new Error('the shell did not answer after Ctrl-C');
      await client.call('terminals.ack', { terminalId, offset: held });
      await sleep(20);
    }
  }, 40_000);
});

/** What a device got of one terminal, in order: output bytes and screens. */
type Received =
  { kind: 'bytes'; offset: number; data: Uint8Array } | { kind: 'screen'; offset: number; data: Uint8Array };

/** A device on a real host with a shell terminal open and attached; `ack` says how it acknowledges. */
async function attachedDevice(ack: 'never' | 'as-drawn') {
  t = await startTestHost({
    remote: LOCAL_REMOTE,
    env: { PATH: process.env.PATH, SHELL: '/bin/sh', HOME: process.env.HOME, PS1: '$ ' },
  });
  const device = await pairDevice(t);
  const { client } = connectDevice(t, device);
  stops.push(() => client.stop());
  const opened = await client.call('terminals.open', { cwd: t.project, cols: 80, rows: 24 });
  if (!opened.ok) throw new Error(opened.error.message);
  const terminalId = opened.value.terminalId;
  const received: Received[] = [];
  /** The offset the device's view stands at: after the last bytes or screen it took. */
  let position = 0;
  client.onEvent((event: TetherEvent) => {
    if (!('terminalId' in event) || event.terminalId !== terminalId) return;
    if (event.type === 'terminal.output') {
      const data = terminalOutputBytes(event.data)!;
      received.push({ kind: 'bytes', offset: event.offset, data });
      position = event.offset + data.length;
    } else if (event.type === 'terminal.screen') {
      received.push({ kind: 'screen', offset: event.offset, data: fromBase64Url(event.data)! });
      position = event.offset;
    } else return;
    if (ack === 'as-drawn') void client.call('terminals.ack', { terminalId, offset: position });
  });
  expect((await client.call('terminals.attach', { terminalId, after: 0 })).ok).toBe(true);
  const handle = t.host.parts.terminals.handle(terminalId)!;
  await until(() => handle.screenLines().some((line) => line.length > 0) || undefined, 10_000, 'the prompt');
  return { client, terminalId, received, handle, position: () => position };
}

/** The screen a device shows after what it received: each screen drawn on a reset terminal. */
async function deviceScreen(received: Received[]): Promise<string[]> {
  let screen = new TerminalScreen(80, 24, () => undefined);
  for (const item of received) {
    if (item.kind === 'screen') {
      screen.dispose();
      screen = new TerminalScreen(80, 24, () => undefined);
    }
    screen.write(item.data);
  }
  await screen.settled();
  const lines = screen.lines();
  screen.dispose();
  return lines;
}

const bytesOf = (received: Received[]) =>
  received.reduce((sum, item) => sum + (item.kind === 'bytes' ? item.data.length : 0), 0);

async function type(client: DeviceClient, terminalId: string, data: string): Promise<void> {
  expect((await client.call('terminals.input', { terminalId, data })).ok).toBe(true);
}

describe('a terminal flood and a device that cannot keep up', () => {
  it('goes on without it: the device gets screens instead of a byte backlog, and ends on the exact screen', async () => {
    const { client, terminalId, received, handle, position } = await attachedDevice('never');
    // About 2 MB: sixteen windows. The device acknowledges nothing, so before frames the program
    // was held back after the first window and the end never came.
    await type(client, terminalId, "seq 1 300000; echo flood''-end\r");
    await until(() => handle.screenLines().some((line) => line === 'flood-end') || undefined, 60_000, 'the end');
    await until(() => position() === handle.end || undefined, 10_000, 'the last screen on the device');

    expect(handle.end).toBeGreaterThan(1_000_000);
    // At most the one window it never acknowledged came as bytes; the rest as screens.
    expect(bytesOf(received)).toBeLessThanOrEqual(TERMINAL_WINDOW_BYTES);
    expect(received.filter((item) => item.kind === 'screen').length).toBeGreaterThan(0);
    expect(await deviceScreen(received)).toEqual(handle.screenLines());
    expect(handle.screenLines()).toContain('300000');
  }, 90_000);

  it('leaves a device that keeps up with every byte, unchanged and in order', async () => {
    const { client, terminalId, received, handle, position } = await attachedDevice('as-drawn');
    // 100 bursts of ~6 KB, 20 ms apart: about five windows, never one ahead of a device that
    // acknowledges what it draws.
    await type(
      client,
      terminalId,
      "for b in $(seq 0 99); do seq $((b*1000+1)) $((b*1000+1000)); sleep 0.02; done; echo flow''-end\r",
    );
    await until(() => handle.screenLines().some((line) => line === 'flow-end') || undefined, 60_000, 'the end');
    await until(() => position() === handle.end || undefined, 10_000, 'the last bytes on the device');

    expect(received.filter((item) => item.kind === 'screen')).toEqual([]);
    let at = 0;
    for (const item of received) {
      expect(item.offset).toBe(at);
      at += item.data.length;
    }
    const text = new TextDecoder().decode(Buffer.concat(received.map((item) => item.data)));
    const numbers = text
      .split('\r\n')
      .filter((line) => /^\d+$/.test(line))
      .map(Number);
    expect(numbers).toEqual(Array.from({ length: 100_000 }, (_, i) => i + 1));
    expect(await deviceScreen(received)).toEqual(handle.screenLines());
  }, 90_000);
});
