import { describe, expect, it } from 'vitest';
import { memoryPipe } from '../client/memory-transport.js';
import { CloseCode } from '../close-codes.js';
import type { Result } from '../errors.js';
import { fail, ok, protocolError } from '../errors.js';
import { ManualClock } from '../testing/manual-clock.js';
import { handshakeWithDeadline } from './handshake-deadline.js';

const tick = () => new Promise<void>((resolve) => setTimeout(() => resolve(), 0));

function start(receive: (data: Uint8Array) => Result<string>) {
  const clock = new ManualClock(0);
  const [near, far] = memoryPipe();
  const heard: Uint8Array[] = [];
  const closes: { code: number; reason: string }[] = [];
  far.onMessage = (data) => heard.push(data);
  far.onClose = (info) => closes.push(info);
  const result = handshakeWithDeadline(near, {
    clock,
    timeoutMs: 1000,
    timeoutMessage: 'the peer did not answer',
    closed: ({ reason }) => protocolError('disconnected', reason || 'closed'),
    closeCode: (error) => (error.code === 'timeout' ? CloseCode.HandshakeFailed : CloseCode.Normal),
    hello: new Uint8Array([1]),
    receive,
  });
  return { clock, near, far, heard, closes, result };
}

describe('handshakeWithDeadline', () => {
  it('says hello, then settles with what the answer made', async () => {
    const { far, heard, clock, result } = start((data) => ok(`welcome ${data[0]}`));
    await tick();
    expect(heard).toEqual([new Uint8Array([1])]);
    far.send(new Uint8Array([7]));
    expect(await result).toEqual(ok('welcome 7'));
    expect(clock.pendingTimers).toBe(0);
  });

  it('fails with timeout at the deadline, and closes the transport with the code asked for', async () => {
    const { clock, closes, result } = start(() => ok('late'));
    clock.advance(999);
    await tick();
    expect(closes).toEqual([]);
    clock.advance(1);
    const settled = await result;
    expect(settled).toEqual(fail('timeout', 'the peer did not answer'));
    await tick();
    expect(closes).toEqual([{ code: CloseCode.HandshakeFailed, reason: 'timeout' }]);
  });

  it('fails with what a close during the handshake means', async () => {
    const { far, clock, result } = start(() => ok('never'));
    far.close(CloseCode.Normal, 'gone');
    expect(await result).toEqual({ ok: false, error: protocolError('disconnected', 'gone') });
    expect(clock.pendingTimers).toBe(0);
  });

  it('fails when the answer is refused, closing the transport, and hears nothing after', async () => {
    let calls = 0;
    const { far, closes, result } = start(() => {
      calls++;
      return fail('handshake-failed', 'bad welcome');
    });
    far.send(new Uint8Array([9]));
    expect(await result).toEqual(fail('handshake-failed', 'bad welcome'));
    far.send(new Uint8Array([9]));
    await tick();
    expect(calls).toBe(1);
    expect(closes).toEqual([{ code: CloseCode.Normal, reason: 'handshake-failed' }]);
  });
});
