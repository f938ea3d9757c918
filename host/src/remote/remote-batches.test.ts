import type { SessionEvent, TetherEvent } from '@tether/shared-protocol';
import { FrameOpener, decodeChannelMessage, encodeChannelMessage } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { idleSession } from '../../test/support/idle-session.js';
import { handshakeRaw, rawSocket } from '../../test/support/raw-channel.js';
import { connectDevice, pairDevice, until } from '../../test/support/remote-device.js';
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

describe('batches', () => {
  const BURST = 100;
  const appendBurst = (t: TestHost, id: string) => {
    for (let i = 0; i < BURST; i++) t.host.parts.log.append(id, { type: 'notice', level: 'info', text: `burst ${i}` });
  };

  it('sends a burst to a device that takes batches as fewer frames, in order, each event once', async () => {
    const t = await setup();
    const id = await idleSession(t, 'hello');
    const { client, events, sockets } = connectDevice(t, await pairDevice(t));
    cleanups.push(() => client.stop());
    client.watch(id, 0);
    await until(() => client.lastSeq(id) === t.host.parts.log.lastSeq(id));
    let frames = 0;
    sockets[sockets.length - 1]!.on('message', () => frames++);
    appendBurst(t, id);
    const last = t.host.parts.log.lastSeq(id);
    await until(() => client.lastSeq(id) === last, 10_000, 'the burst');
    // The burst and the session list's own updates, each list update at most once per event.
    expect(frames).toBeGreaterThan(0);
    expect(frames).toBeLessThan(BURST / 10);
    expect(sessionEvents(events, id).map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  });

  it('sends single frames to a device that did not say it takes batches', async () => {
    const t = await setup();
    const id = await idleSession(t, 'hello');
    const device = await pairDevice(t);
    const socket = rawSocket(t);
    cleanups.push(() => socket.ws.terminate());
    const b = await handshakeRaw(device, socket);
    const opener = new FrameOpener(b.keys.receive);
    const watch = b.sealer.seal(
      encodeChannelMessage({ t: 'req', id: 1, method: 'sessions.watch', params: { id, after: 0 } }),
    );
    if (!watch.ok) throw new Error(watch.error.code);
    b.ws.send(watch.value);
    const last = t.host.parts.log.lastSeq(id);
    const seqs = () =>
      b.received.flatMap((frame) => {
        const plain = opener.open(frame);
        if (!plain.ok) throw new Error(plain.error.code);
        // A JSON message each: a batch (0x02) would fail to decode here.
        const message = decodeChannelMessage(plain.value);
        if (!message) throw new Error('not a single JSON message');
        const event = message.t === 'evt' ? (message.event as { sessionId?: string; seq?: number }) : undefined;
        return event?.sessionId === id && event.seq !== undefined ? [event.seq] : [];
      });
    const seen: number[] = [];
    await until(() => (seen.push(...seqs()), b.received.splice(0), seen.at(-1) === last ? true : undefined));
    appendBurst(t, id);
    await until(() => (seen.push(...seqs()), b.received.splice(0), seen.length === last + BURST ? true : undefined));
    expect(seen).toEqual(Array.from({ length: last + BURST }, (_, i) => i + 1));
  });
});
