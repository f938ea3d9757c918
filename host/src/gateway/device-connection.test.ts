import { CloseCode, HANDSHAKE_TIMEOUT_MS, closeCodeToError, ok } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { gatewayHarness, gatewayPipe, settle } from '../../test/support/gateway-harness.js';
import { MAX_IN_FLIGHT } from './device-connection.js';
import { HIGH_WATER_BYTES, LOW_WATER_BYTES } from '../streams/outbox.js';
import { StreamSubscription } from '../streams/stream-subscription.js';
import type { StreamReader, StreamSource } from '../streams/stream-subscription.js';

describe('a device connection', () => {
  it('opens with the handshake and answers requests through the dispatch, scopes checked', async () => {
    const h = gatewayHarness({
      'sessions.list': () => ok({ sessions: [] }),
      'approvals.list': () => ok({ approvals: [] }),
    });
    const watcher = await h.connect(['watch']);
    expect(await watcher.request('sessions.list', {})).toMatchObject({ result: { sessions: [] } });
    expect(await watcher.request('sessions.send', { id: 's', text: 'hi' })).toMatchObject({
      error: { code: 'forbidden' },
    });
    expect(await watcher.request('no.such', {})).toMatchObject({ error: { code: 'unknown-method' } });
    expect(await watcher.request('sessions.list', { includeArchived: 'yes' })).toMatchObject({
      error: { code: 'invalid-params' },
    });
    expect(h.gateway.stats.get('request:forbidden')).toBe(1);
    expect(h.gateway.hub.connectedDevices().size).toBe(1);
  });

  it('closes a connection that sends no hello within the handshake deadline, as late rather than refused', async () => {
    const h = gatewayHarness();
    const pipe = gatewayPipe();
    let closedWith: number | undefined;
    pipe.device.onClose = ({ code }) => (closedWith = code);
    h.gateway.accept(pipe.host);
    h.clock.advance(HANDSHAKE_TIMEOUT_MS - 1);
    await settle();
    expect(closedWith).toBeUndefined();
    h.clock.advance(1);
    await settle();
    // Not 4001 (an unknown device, a hello that does not open): a phone too slow to say hello is
    // not told the computer no longer knows it, and keeps saying the computer is out of reach.
    expect(closedWith).toBe(CloseCode.PingTimeout);
    expect(closeCodeToError(closedWith!)).toBe('timeout');
    expect(h.gateway.stats.get('handshake-timeout')).toBe(1);
  });

  it('ends the channel on a frame that does not open, and counts why', async () => {
    const h = gatewayHarness();
    const phone = await h.connect();
    phone.transport.onMessage?.(new Uint8Array([3, 0, 0, 0, 0, 1, 2, 3]));
    await settle();
    expect(phone.connection.isClosed).toBe(true);
    expect(Object.keys(h.gateway.stats.snapshot()).some((k) => k.startsWith('frame:'))).toBe(true);
  });

  it('answers busy past the in-flight limit instead of queueing without bound', async () => {
    const never = new Promise<never>(() => undefined);
    const h = gatewayHarness({ 'sessions.list': () => never });
    const phone = await h.connect();
    for (let id = 1; id <= MAX_IN_FLIGHT + 1; id++)
      phone.channel.send({ t: 'req', id, method: 'sessions.list', params: {} });
    for (let i = 0; i < 5; i++) await settle();
    expect(phone.received).toHaveLength(1);
    expect(phone.received[0]).toMatchObject({ t: 'res', id: MAX_IN_FLIGHT + 1, error: { code: 'busy' } });
  });

  it('replays a watched session from where the device is, then follows live, each event once', async () => {
    const h = gatewayHarness();
    h.session('s1');
    for (let i = 0; i < 5; i++) h.log.append('s1', { type: 'notice', level: 'info', text: `n${i}` });
    const phone = await h.connect();
    expect(phone.connection.watch('s1', 2).ok).toBe(true);
    h.log.append('s1', { type: 'notice', level: 'info', text: 'live' });
    await settle();
    const seqs = phone
      .events()
      .filter((e) => 'seq' in e && e.sessionId === 's1')
      .map((e) => ('seq' in e ? e.seq : 0));
    expect(seqs).toEqual([3, 4, 5, 6]);
  });

  it('cuts off a device too far behind on a watched session, saying so, so it resumes by sequence number', async () => {
    const h = gatewayHarness();
    h.session('s1');
    const phone = await h.connect();
    phone.connection.watch('s1', 0);
    await settle();
    phone.transport.buffered = HIGH_WATER_BYTES + 1;
    h.log.append('s1', { type: 'notice', level: 'info', text: 'one too many' });
    await settle();
    expect(phone.received.at(-1)).toMatchObject({ t: 'bye', code: 'slow-consumer' });
    expect(h.gateway.stats.get('closed:slow-consumer')).toBe(1);
  });

  it('keeps only the newest update per session for the session list while behind, and sends it once drained', async () => {
    const h = gatewayHarness();
    h.session('a');
    h.session('b');
    const phone = await h.connect();
    phone.transport.buffered = HIGH_WATER_BYTES + 1;
    for (const id of ['a', 'b', 'a', 'a']) {
      h.log.append(id, (seq) => ({
        type: 'session.updated',
        session: { ...h.sessions.summary(h.sessions.get(id)!, seq) },
      }));
    }
    await settle();
    expect(phone.events()).toEqual([]);
    expect(phone.connection.isClosed).toBe(false);
    phone.transport.buffered = LOW_WATER_BYTES - 1;
    h.clock.advance(100);
    await settle();
    const updates = phone.events().map((e) => ('seq' in e ? `${e.sessionId}#${e.seq}` : e.type));
    expect(updates).toEqual(['b#1', 'a#3']);
  });

  it('detaches a stream whose reader stopped acknowledging, with a reason, and keeps its session watch', async () => {
    const h = gatewayHarness();
    h.session('s1');
    const phone = await h.connect();
    phone.connection.watch('s1', 0);
    const source = new FakeStream();
    const stream = new StreamSubscription('terminal:t1', phone.connection.outbox, source, 0, {
      clock: h.clock,
      windowBytes: 8,
      chunkBytes: 4,
      stallMs: 30_000,
      encode: (chunk) => ({
        t: 'evt',
        event: { type: 'terminal.output', terminalId: 't1', offset: chunk.offset, data: String(chunk.data.length) },
      }),
      detached: (reason) => ({ t: 'evt', event: { type: 'terminal.exit', terminalId: 't1', code: null, reason } }),
    });
    phone.connection.subscribe(stream);
    source.write(20);
    stream.notify();
    await settle();
    expect(stream.offset).toBe(8);
    expect(source.blocked.has(stream)).toBe(true);
    stream.ack(4);
    expect(stream.offset).toBe(12);
    h.clock.advance(30_000);
    await settle();
    expect(source.released).toBe(true);
    expect(phone.received.at(-1)).toMatchObject({ t: 'evt', event: { reason: 'no acknowledgement for 30 s' } });
    expect(phone.connection.isClosed).toBe(false);
    h.log.append('s1', { type: 'notice', level: 'info', text: 'still here' });
    await settle();
    expect(phone.events().at(-1)).toMatchObject({ type: 'notice', text: 'still here' });
  });
});

describe('a device connection that takes batches', () => {
  async function batching() {
    const h = gatewayHarness();
    h.session('s1');
    const phone = await h.connect();
    phone.connection.acceptBatches();
    expect(phone.connection.watch('s1', 0).ok).toBe(true);
    await settle();
    const written: Uint8Array[] = [];
    const send = phone.transport.send;
    phone.transport.send = (data) => {
      written.push(data);
      send(data);
    };
    const append = (text: string) => h.log.append('s1', { type: 'notice', level: 'info', text });
    const seqs = () => phone.events().flatMap((e) => ('seq' in e && e.sessionId === 's1' ? [e.seq] : []));
    return { h, phone, written, append, seqs };
  }

  it('sends a lone event at the end of the task that appended it, with no timer', async () => {
    const b = await batching();
    b.append('alone');
    expect(b.written).toHaveLength(0);
    // One microtask later, the clock untouched and no other task run: the frame is out.
    await Promise.resolve();
    expect(b.written).toHaveLength(1);
    await settle();
    expect(b.seqs()).toEqual([1]);
  });

  it('counts what waits for the end of the task as buffered, so back-pressure holds', async () => {
    const b = await batching();
    const before = b.phone.connection.outbox.buffered();
    b.append('x'.repeat(1000));
    expect(b.phone.connection.outbox.buffered()).toBeGreaterThan(before + 1000);
    await Promise.resolve();
    expect(b.phone.connection.outbox.buffered()).toBe(before);
  });

  it('sends what is queued before its goodbye, in order', async () => {
    const b = await batching();
    for (let i = 0; i < 3; i++) b.append(`n${i}`);
    b.phone.connection.sendBye('revoked', 'revoked at the computer', CloseCode.Revoked);
    await settle();
    expect(b.written).toHaveLength(1);
    expect(b.seqs()).toEqual([1, 2, 3]);
    expect(b.phone.received.at(-1)).toMatchObject({ t: 'bye', code: 'revoked' });
  });
});

class FakeStream implements StreamSource {
  private length = 0;
  readonly blocked = new Set<StreamReader>();
  released = false;

  addReader(): void {}

  write(bytes: number): void {
    this.length += bytes;
  }

  read(offset: number, maxBytes: number) {
    const n = Math.min(maxBytes, this.length - offset);
    return n > 0 ? { offset, data: new Uint8Array(n) } : undefined;
  }

  setBlocked(reader: StreamReader, blocked: boolean): void {
    if (blocked) this.blocked.add(reader);
    else this.blocked.delete(reader);
  }

  release(): void {
    this.released = true;
  }
}
