import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { DeltaCoalescer } from './delta-coalescer.js';

describe('DeltaCoalescer', () => {
  it('sends the first piece at once, then at most one piece per interval, losing nothing', () => {
    const clock = new ManualClock();
    const out: string[] = [];
    const c = new DeltaCoalescer(clock, (t) => out.push(t), 250);
    c.push('Hel');
    expect(out).toEqual(['Hel']);
    for (let i = 0; i < 100; i++) {
      c.push('x');
      clock.advance(10);
    }
    // 1000 ms of streaming: about four more pieces, not a hundred.
    expect(out.length).toBeLessThanOrEqual(6);
    c.flush();
    expect(out.join('')).toBe(`Hel${'x'.repeat(100)}`);
  });

  it('flushes what is left when the message ends', () => {
    const clock = new ManualClock();
    const out: string[] = [];
    const c = new DeltaCoalescer(clock, (t) => out.push(t), 250);
    c.push('a');
    c.push('b');
    c.flush();
    expect(out).toEqual(['a', 'b']);
    expect(clock.pendingTimers).toBe(0);
  });
});
