import { describe, expect, it } from 'vitest';
import { CloseCode } from '../close-codes.js';
import type { ProtocolError } from '../errors.js';
import { generateBoxKeyPair, generateDeviceId } from '../identity.js';
import { ReplayCache } from '../replay-cache.js';
import { BATCH_TAG, encodeBatch } from '../rpc/batch-frame.js';
import type { ChannelMessage } from '../rpc/channel.js';
import { encodeChannelMessage } from '../rpc/channel.js';
import { encodeTerminalOutput } from '../rpc/terminal-output-frame.js';
import { HostChannel } from '../server/host-channel.js';
import { ManualClock } from '../testing/manual-clock.js';
import { seededRandom } from '../testing/seeded-random.js';
import { DeviceChannel } from './device-channel.js';
import { memoryPipe } from './memory-transport.js';

/** A device channel over an in-memory pipe, and the host's half that seals what the test sends. */
async function opened() {
  const random = seededRandom('device-channel');
  const clock = new ManualClock();
  const hostKeys = generateBoxKeyPair(random);
  const deviceKeys = generateBoxKeyPair(random);
  const deviceId = generateDeviceId(random);
  const [device, server] = memoryPipe();
  let host: HostChannel | undefined;
  server.onMessage = (hello) => {
    const accepted = HostChannel.accept(hello, {
      hostKeys,
      lookupDevice: (id) => (id === deviceId ? deviceKeys.publicKey : undefined),
      clock,
      random,
      replay: new ReplayCache(clock),
    });
    if (!accepted.ok) throw new Error(accepted.error.message);
    host = accepted.value.channel;
    server.send(accepted.value.welcome);
  };
  const result = await DeviceChannel.open(device, {
    deviceId,
    deviceKeys,
    hostBoxPublicKey: hostKeys.publicKey,
    clock,
    random,
  });
  if (!result.ok) throw new Error(result.error.message);
  const channel = result.value;
  const received: ChannelMessage[] = [];
  const closes: ProtocolError[] = [];
  channel.onMessage = (message) => received.push(message);
  channel.onClose = (error) => closes.push(error);
  const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
  /** Seals a plaintext as the host would and sends it to the device. */
  const sendPlain = (plain: Uint8Array | Uint8Array[]) => {
    const frame = host!.sealBinary(plain);
    if (!frame.ok) throw new Error(frame.error.message);
    server.send(frame.value);
  };
  return { channel, received, closes, settle, sendPlain, server };
}

describe('DeviceChannel batches', () => {
  it('delivers every message of a batch, in order, each once', async () => {
    const s = await opened();
    const messages: ChannelMessage[] = [
      { t: 'pong', n: 1 },
      { t: 'evt', event: { type: 'notice', level: 'info', text: 'a' } },
      { t: 'pong', n: 2 },
    ];
    s.sendPlain(encodeBatch([...messages.map(encodeChannelMessage), encodeTerminalOutput('t1', 4, Uint8Array.of(7))]));
    s.sendPlain(encodeChannelMessage({ t: 'pong', n: 3 }));
    await s.settle();
    expect(s.received.slice(0, 3)).toEqual(messages);
    expect(s.received[3]).toMatchObject({ t: 'evt', event: { type: 'terminal.output', terminalId: 't1', offset: 4 } });
    expect(s.received[4]).toEqual({ t: 'pong', n: 3 });
    expect(s.received).toHaveLength(5);
    expect(s.closes).toEqual([]);
  });

  it('refuses a malformed batch whole with a stable code and ends the channel', async () => {
    const s = await opened();
    const one = encodeChannelMessage({ t: 'pong', n: 1 });
    // Says three messages, holds two: nothing of it is delivered.
    const parts = encodeBatch([one, one]);
    parts[0] = Uint8Array.of(BATCH_TAG, 0, 3);
    s.sendPlain(parts);
    s.sendPlain(one);
    await s.settle();
    expect(s.received).toEqual([]);
    expect(s.closes.map((e) => e.code)).toEqual(['frame-malformed']);
    expect(s.channel.isClosed).toBe(true);
    expect(s.server.closed).toBe(true);
  });

  it('refuses a batch of more messages than allowed', async () => {
    const s = await opened();
    s.sendPlain(Uint8Array.of(BATCH_TAG, 0xff, 0xff));
    await s.settle();
    expect(s.received).toEqual([]);
    expect(s.closes.map((e) => e.code)).toEqual(['frame-too-large']);
  });

  it('closes with the protocol-error close code', async () => {
    const s = await opened();
    let closeCode = 0;
    s.server.onClose = ({ code }) => (closeCode = code);
    s.sendPlain(Uint8Array.of(BATCH_TAG, 0, 1));
    await s.settle();
    expect(closeCode).toBe(CloseCode.ProtocolError);
  });
});
