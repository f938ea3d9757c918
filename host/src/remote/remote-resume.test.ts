import type { SessionEvent, TetherEvent } from '@tether/shared-protocol';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDevice, pairDevice, pauseReading, until } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

let t: TestHost | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  await t?.close();
  t = undefined;
});

async function setup() {
  t = await startTestHost({ remote: LOCAL_REMOTE, demoDelayMs: 0 });
  return t;
}

const sessionEvents = (events: TetherEvent[], id: string) =>
  events.filter((e): e is SessionEvent => 'seq' in e && e.sessionId === id);

describe('resume and backpressure', () => {
  it('resumes after disconnects at random points with every event exactly once', async () => {
    const t = await setup();
    const device = await pairDevice(t);
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    t.host.parts.sessions.interrupt(id);
    await t.waitFor(id, (e) => e.type === 'run.finished');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 3, maxLength: 8 }), async (bursts) => {
        const { client, events, sockets } = connectDevice(t, device);
        try {
          client.watch(id, 0);
          for (const burst of bursts) {
            for (let i = 0; i < burst; i++)
              t.host.parts.log.append(id, { type: 'notice', level: 'info', text: `burst ${i}` });
            // Cut the connection dead (no close handshake) at a random moment.
            sockets[sockets.length - 1]?.terminate();
            await new Promise((r) => setTimeout(r, Math.random() * 30));
          }
          const last = t.host.parts.log.lastSeq(id);
          await until(() => client.lastSeq(id) === last, 10_000, 'the device to catch up');
          const seqs = sessionEvents(events, id).map((e) => e.seq);
          expect(seqs).toEqual(Array.from({ length: last }, (_, i) => i + 1));
        } finally {
          client.stop();
        }
      }),
      { numRuns: 8 },
    );
  });

  it('cuts off a device that does not read, while a fast one keeps streaming, and the slow one resumes', async () => {
    const t = await setup();
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    t.host.parts.sessions.interrupt(id);
    await t.waitFor(id, (e) => e.type === 'run.finished');
    const fast = connectDevice(t, await pairDevice(t, { label: 'fast' }));
    const slow = connectDevice(t, await pairDevice(t, { label: 'slow' }));
    cleanups.push(
      () => fast.client.stop(),
      () => slow.client.stop(),
    );
    fast.client.watch(id, 0);
    slow.client.watch(id, 0);
    await until(
      () =>
        fast.client.lastSeq(id) === t.host.parts.log.lastSeq(id) &&
        slow.client.lastSeq(id) === t.host.parts.log.lastSeq(id),
    );
    expect(t.host.parts.gateway.hub.connectedDevices().size).toBe(2);
    const paused = pauseReading(slow.streams);
    const big = 'x'.repeat(200_000);
    // A busy session: big events, a few milliseconds apart (the fast device drains in between).
    for (let i = 0; i < 120; i++) {
      t.host.parts.log.append(id, { type: 'message', messageId: `m${i}`, role: 'assistant', text: big });
      await new Promise((r) => setTimeout(r, 5));
    }
    await until(
      () => t.host.parts.gateway.stats.get('closed:slow-consumer') === 1,
      10_000,
      'the slow device to be cut off',
    );
    await until(
      () => fast.client.lastSeq(id) === t.host.parts.log.lastSeq(id),
      10_000,
      'the fast device to get everything',
    );
    paused.resume();
    await until(() => slow.client.lastSeq(id) === t.host.parts.log.lastSeq(id), 20_000, 'the slow device to resume');
    const seqs = sessionEvents(slow.events, id).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: t.host.parts.log.lastSeq(id) }, (_, i) => i + 1));
    expect(slow.sockets.length).toBeGreaterThan(1);
  });
});
