import { describe, expect, it } from 'vitest';
import type { Result } from '@tether/shared-protocol';
import { BATCH_TAG, MAX_FRAME_PLAINTEXT, concatBytes, decodeBatch, fail, ok } from '@tether/shared-protocol';
import type { BatchBounds } from './send-batcher.js';
import { SendBatcher } from './send-batcher.js';

/** A batcher whose "seal" is the plaintext itself and whose end of task is run by the test. */
function setup(bounds?: BatchBounds) {
  const written: Uint8Array[] = [];
  const deferred: (() => void)[] = [];
  const seal = (plain: Uint8Array | readonly Uint8Array[]): Result<Uint8Array> => {
    const bytes = plain instanceof Uint8Array ? plain : concatBytes(...plain);
    return bytes.length > MAX_FRAME_PLAINTEXT ? fail('frame-too-large', 'too large') : ok(bytes);
  };
  const batcher = new SendBatcher({ seal, write: (frame) => written.push(frame) }, (run) => deferred.push(run), bounds);
  const endTask = () => deferred.splice(0).forEach((run) => run());
  return { batcher, written, deferred, endTask };
}

const message = (n: number) => new TextEncoder().encode(JSON.stringify({ t: 'pong', n }));
/** The messages each written frame holds, as the numbers they carry. */
function numbers(frames: Uint8Array[]): number[][] {
  return frames.map((frame) => {
    const inner = frame[0] === BATCH_TAG ? decodeBatch(frame) : ok([frame]);
    if (!inner.ok) throw new Error(inner.error.code);
    return inner.value.map((m) => (JSON.parse(new TextDecoder().decode(m)) as { n: number }).n);
  });
}

describe('SendBatcher', () => {
  it('writes each message at once until the device takes batches', () => {
    const s = setup();
    s.batcher.send(message(1));
    s.batcher.send(message(2));
    expect(numbers(s.written)).toEqual([[1], [2]]);
    expect(s.deferred).toEqual([]);
  });

  it('sends what one task queued as one batch at its end, in order', () => {
    const s = setup();
    s.batcher.enable();
    for (let n = 1; n <= 5; n++) s.batcher.send(message(n));
    expect(s.written).toEqual([]);
    expect(s.batcher.pendingBytes).toBe([1, 2, 3, 4, 5].reduce((sum, n) => sum + message(n).length, 0));
    expect(s.deferred).toHaveLength(1);
    s.endTask();
    expect(numbers(s.written)).toEqual([[1, 2, 3, 4, 5]]);
    expect(s.batcher.pendingBytes).toBe(0);
    expect(s.batcher.sent).toEqual({ frames: 1, batches: 1 });
  });

  it('sends a lone message as a frame of its own, not a batch', () => {
    const s = setup();
    s.batcher.enable();
    s.batcher.send(message(1));
    s.endTask();
    expect(s.written[0]![0]).toBe(0x7b);
    expect(s.batcher.sent).toEqual({ frames: 1, batches: 0 });
  });

  it('splits a burst at the message count and the byte bound', () => {
    const counted = setup({ messages: 3, bytes: MAX_FRAME_PLAINTEXT });
    counted.batcher.enable();
    for (let n = 1; n <= 7; n++) counted.batcher.send(message(n));
    counted.endTask();
    expect(numbers(counted.written)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);

    // Room for two of these messages and the batch's 3 + 2 × 4 bytes of tag, count and lengths.
    const sized = setup({ messages: 256, bytes: 2 * message(1).length + 11 });
    sized.batcher.enable();
    for (let n = 1; n <= 5; n++) sized.batcher.send(message(n));
    sized.endTask();
    expect(numbers(sized.written)).toEqual([[1, 2], [3, 4], [5]]);
    expect(sized.written.every((frame) => frame.length <= 2 * message(1).length + 11)).toBe(true);
  });

  it('flushes on demand, and refuses a message no frame can hold', () => {
    const s = setup();
    s.batcher.enable();
    s.batcher.send(message(1));
    s.batcher.send(message(2));
    s.batcher.flush();
    expect(numbers(s.written)).toEqual([[1, 2]]);
    s.endTask();
    expect(s.written).toHaveLength(1);
    const refused = s.batcher.send(new Uint8Array(MAX_FRAME_PLAINTEXT + 1));
    expect(!refused.ok && refused.error.code).toBe('frame-too-large');
    expect(s.batcher.pendingBytes).toBe(0);
  });
});
