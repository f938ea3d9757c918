import { describe, expect, it } from 'vitest';
import { concatBytes, utf8Encode } from '../encoding.js';
import { MAX_FRAME_PLAINTEXT } from '../limits.js';
import { BATCH_TAG, MAX_BATCH_MESSAGES, batchBytes, decodeBatch, encodeBatch } from './batch-frame.js';
import { encodeTerminalOutput } from './terminal-output-frame.js';

const json = (n: number) => utf8Encode(JSON.stringify({ t: 'pong', n }));
const plainOf = (messages: Uint8Array[]) => concatBytes(...encodeBatch(messages));

/** A batch written by hand: tag, count, then each entry's stated length and bytes. */
function handMade(count: number, entries: { length: number; bytes: Uint8Array }[]): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(BATCH_TAG, count >> 8, count & 0xff)];
  for (const { length, bytes } of entries) {
    parts.push(Uint8Array.of(length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff), bytes);
  }
  return concatBytes(...parts);
}

describe('batch frames', () => {
  it('carries JSON and terminal-output messages in order, as views of the plaintext', () => {
    const messages = [json(1), encodeTerminalOutput('t1', 7, Uint8Array.of(0, 0xff)), json(2)];
    const plain = plainOf(messages);
    expect(plain[0]).toBe(BATCH_TAG);
    expect(plain.length).toBe(
      batchBytes(
        3,
        messages.reduce((sum, m) => sum + m.length, 0),
      ),
    );
    const decoded = decodeBatch(plain);
    expect(decoded.ok && decoded.value).toEqual(messages);
    expect(decoded.ok && decoded.value[0]!.buffer).toBe(plain.buffer);
  });

  it('takes the largest count it allows', () => {
    const messages = Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => json(i));
    const decoded = decodeBatch(plainOf(messages));
    expect(decoded.ok && decoded.value.length).toBe(MAX_BATCH_MESSAGES);
  });

  it('refuses a malformed batch whole, with a stable code', () => {
    const one = json(1);
    const refusals: [string, Uint8Array, string][] = [
      ['empty', new Uint8Array(0), 'frame-malformed'],
      ['not a batch', one, 'frame-malformed'],
      ['no count', Uint8Array.of(BATCH_TAG, 0), 'frame-malformed'],
      ['no messages', handMade(0, []), 'frame-malformed'],
      ['one message', handMade(1, [{ length: one.length, bytes: one }]), 'frame-malformed'],
      [
        'count above the bytes',
        handMade(3, [
          { length: one.length, bytes: one },
          { length: one.length, bytes: one },
        ]),
        'frame-malformed',
      ],
      [
        'a length past the end',
        handMade(2, [
          { length: one.length, bytes: one },
          { length: 0xffff_ffff, bytes: one },
        ]),
        'frame-malformed',
      ],
      [
        'an empty entry',
        handMade(2, [
          { length: one.length, bytes: one },
          { length: 0, bytes: new Uint8Array(0) },
        ]),
        'frame-malformed',
      ],
      ['bytes after the last', concatBytes(plainOf([one, one]), Uint8Array.of(0x7b)), 'frame-malformed'],
      [
        'a nested batch',
        handMade(2, [
          { length: one.length, bytes: one },
          { length: 9, bytes: plainOf([one, one]).subarray(0, 9) },
        ]),
        'frame-malformed',
      ],
      [
        'an unknown kind',
        handMade(2, [
          { length: one.length, bytes: one },
          { length: 1, bytes: Uint8Array.of(0x09) },
        ]),
        'frame-malformed',
      ],
      ['too many messages', handMade(MAX_BATCH_MESSAGES + 1, []), 'frame-too-large'],
      ['over the frame limit', concatBytes(handMade(2, []), new Uint8Array(MAX_FRAME_PLAINTEXT)), 'frame-too-large'],
    ];
    for (const [name, plain, code] of refusals) {
      const decoded = decodeBatch(plain);
      expect({ name, code: decoded.ok ? 'accepted' : decoded.error.code }).toEqual({ name, code });
    }
  });

  it('survives random bytes behind the tag without throwing', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    for (let round = 0; round < 500; round++) {
      const plain = Uint8Array.from({ length: 3 + (next() % 64) }, next);
      plain[0] = BATCH_TAG;
      expect(() => decodeBatch(plain)).not.toThrow();
    }
  });
});
