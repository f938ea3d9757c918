import type { TetherEvent } from '@tether/shared-protocol';
import { TERMINAL_WINDOW_BYTES, fromBase64Url, terminalOutputBytes } from '@tether/shared-protocol';
import { TERMINAL_BACKLOG_BYTES } from '@tether/machine';
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
    let end = 0;
    const started = Date.now();
    let lastAck = started;
    while (Date.now() - started < FLOOD_MS) {
      host.parts.log.append('s_flood', { type: 'notice', level: 'info', text: `tick ${notices++}` });
      await sleep(100);
      const listed = await client.call('terminals.list', {});
      end = listed.ok ? (listed.value.terminals[0]?.end ?? 0) : 0;
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
    expect(end - acked).toBeGreaterThan(TERMINAL_WINDOW_BYTES + TERMINAL_BACKLOG_BYTES);
    expect(screens).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual((FLOOD_MS / ACK_EVERY_MS + 2) * TERMINAL_WINDOW_BYTES);
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
  });
});
