import { describe, expect, it } from 'vitest';
import { ByteBudget, CONTROL, Outbox } from './outbox.js';

function slowSocket() {
  const waiting: (() => void)[] = [];
  return {
    write: (_bytes: Uint8Array, done: () => void) => void waiting.push(done),
    flushOne: () => waiting.shift()?.(),
    flushAll: () => waiting.splice(0).forEach((d) => d()),
    get pending() {
      return waiting.length;
    },
  };
}

const frame = (n: number) => new Uint8Array(n);

describe('Outbox', () => {
  it('accounts for every byte until the socket has written it', () => {
    const socket = slowSocket();
    const budget = new ByteBudget(1000);
    const box = new Outbox({ maxBytes: 100, maxFrames: 10 }, budget, { send: socket.write });
    expect(box.push(frame(30))).toBe('sent');
    expect(box.push(frame(30))).toBe('sent');
    expect([box.bytes, box.frames, budget.used]).toEqual([60, 2, 60]);
    socket.flushOne();
    expect([box.bytes, box.frames, budget.used]).toEqual([30, 1, 30]);
    socket.flushAll();
    expect([box.bytes, box.frames, budget.used, box.highWater]).toEqual([0, 0, 0, 60]);
  });

  it('refuses past its bytes or frames, and takes again once written', () => {
    const socket = slowSocket();
    const box = new Outbox({ maxBytes: 100, maxFrames: 3 }, new ByteBudget(1000), { send: socket.write });
    expect(box.push(frame(60))).toBe('sent');
    expect(box.push(frame(50))).toBe('full');
    expect(box.push(frame(10))).toBe('sent');
    expect(box.push(frame(10))).toBe('sent');
    expect(box.push(frame(1))).toBe('full'); // four frames
    socket.flushAll();
    expect(box.push(frame(100))).toBe('sent');
    expect(box.highWater).toBeLessThanOrEqual(100);
  });

  it('always takes one frame when empty, however large', () => {
    const box = new Outbox({ maxBytes: 10, maxFrames: 1 }, new ByteBudget(10), { send: slowSocket().write });
    expect(box.push(frame(1000))).toBe('sent');
    expect(box.push(frame(1))).toBe('full');
  });

  it("bounds each owner's share, and control frames only by the total", () => {
    const socket = slowSocket();
    const box = new Outbox({ maxBytes: 100, maxFrames: 100, shareBytes: 40, shareFrames: 100 }, new ByteBudget(1000), {
      send: socket.write,
    });
    expect(box.push(frame(30), 1)).toBe('sent');
    expect(box.push(frame(20), 1)).toBe('share-full');
    expect(box.push(frame(30), 2)).toBe('sent');
    expect(box.push(frame(35), CONTROL)).toBe('sent');
    expect(box.push(frame(10), 3)).toBe('full');
    expect([box.ownerBytes(1), box.ownerBytes(2), box.bytes]).toEqual([30, 30, 95]);
    socket.flushOne();
    expect(box.ownerBytes(1)).toBe(0);
    expect(box.push(frame(5), 1)).toBe('sent');
  });

  it('shares a node budget between outboxes', () => {
    const budget = new ByteBudget(100);
    const a = new Outbox({ maxBytes: 80, maxFrames: 10 }, budget, { send: slowSocket().write });
    const b = new Outbox({ maxBytes: 80, maxFrames: 10 }, budget, { send: slowSocket().write });
    expect(a.push(frame(70))).toBe('sent');
    expect(b.push(frame(40))).toBe('budget-full');
    expect(b.push(frame(30))).toBe('sent');
    expect(budget.highWater).toBe(100);
  });

  it('gives everything back on close and ignores late write callbacks', () => {
    const socket = slowSocket();
    const budget = new ByteBudget(1000);
    const box = new Outbox({ maxBytes: 100, maxFrames: 10 }, budget, { send: socket.write });
    box.push(frame(40));
    box.push(frame(40));
    box.close();
    expect(budget.used).toBe(0);
    socket.flushAll();
    expect(budget.used).toBe(0);
    expect(box.push(frame(1))).toBe('closed');
  });
});
