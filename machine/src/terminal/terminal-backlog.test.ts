import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TerminalBacklog } from './terminal-backlog.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | undefined) => (data ? new TextDecoder().decode(data) : undefined);

describe('a terminal backlog', () => {
  it('addresses output by absolute byte offset and reads from any offset it still holds', () => {
    const backlog = new TerminalBacklog(8);
    backlog.append(bytes('hello'));
    expect([backlog.start, backlog.end]).toEqual([0, 5]);
    expect(text(backlog.read(1, 100)?.data)).toBe('ello');
    expect(backlog.read(5, 100)).toBeUndefined();
    expect(text(backlog.read(0, 2)?.data)).toBe('he');
  });

  it('drops the oldest bytes past its capacity, and a read from a dropped offset starts at the oldest held', () => {
    const backlog = new TerminalBacklog(8);
    backlog.append(bytes('hello'));
    backlog.append(bytes(' world'));
    expect([backlog.start, backlog.end]).toEqual([3, 11]);
    expect(backlog.read(0, 100)).toEqual({ offset: 3, data: bytes('lo world') });
    expect(backlog.read(9, 100)).toEqual({ offset: 9, data: bytes('ld') });
  });

  it('keeps only the tail of a chunk larger than itself', () => {
    const backlog = new TerminalBacklog(4);
    backlog.append(bytes('abcdefghij'));
    expect([backlog.start, backlog.end]).toEqual([6, 10]);
    expect(text(backlog.read(0, 10)?.data)).toBe('ghij');
  });

  it('hands out copies that later appends do not change', () => {
    const backlog = new TerminalBacklog(4);
    backlog.append(bytes('abcd'));
    const chunk = backlog.read(0, 4)!;
    backlog.append(bytes('wxyz'));
    expect(text(chunk.data)).toBe('abcd');
  });

  it('agrees with the whole stream for any sequence of appends and reads', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.array(fc.uint8Array({ maxLength: 100 }), { maxLength: 30 }),
        fc.nat(),
        fc.integer({ min: 1, max: 200 }),
        (capacity, chunks, offsetSeed, maxBytes) => {
          const backlog = new TerminalBacklog(capacity);
          const all: number[] = [];
          for (const chunk of chunks) {
            backlog.append(chunk);
            all.push(...chunk);
          }
          expect(backlog.end).toBe(all.length);
          expect(backlog.start).toBe(Math.max(0, all.length - capacity));
          const offset = offsetSeed % (all.length + 1);
          const read = backlog.read(offset, maxBytes);
          const from = Math.max(offset, backlog.start);
          const expected = all.slice(from, from + maxBytes);
          if (expected.length === 0) expect(read).toBeUndefined();
          else expect(read).toEqual({ offset: from, data: Uint8Array.from(expected) });
        },
      ),
    );
  });
});
