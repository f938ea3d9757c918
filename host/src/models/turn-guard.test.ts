import { describe, expect, it } from 'vitest';
import { ManualClock } from '@tether/shared-protocol/testing';
import { TurnGuard } from './turn-guard.js';

describe('TurnGuard', () => {
  it('counts only the time spent waiting on the API', () => {
    const clock = new ManualClock();
    const guard = new TurnGuard('Test API', new AbortController().signal, 1_000, clock);
    guard.arm();
    clock.advance(900);
    guard.disarm();
    // The loop may take as long as it likes with an event.
    clock.advance(5_000);
    expect(guard.signal.aborted).toBe(false);
    guard.arm();
    clock.advance(999);
    expect(guard.signal.aborted).toBe(false);
    clock.advance(1);
    expect(guard.signal.aborted).toBe(true);
    expect(guard.stopError()).toMatchObject({
      kind: 'network',
      message: 'Test API sent nothing for 1 s; giving up on the connection',
    });
  });

  it("forwards the request's abort, which wins over the idle timeout", () => {
    const clock = new ManualClock();
    const request = new AbortController();
    const guard = new TurnGuard('Test API', request.signal, 1_000, clock);
    guard.arm();
    clock.advance(1_000);
    request.abort();
    expect(guard.stopError()).toMatchObject({ kind: 'aborted' });
  });

  it('starts aborted for an aborted request, and aborts on dispose', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(new TurnGuard('T', aborted.signal, 1_000, new ManualClock()).signal.aborted).toBe(true);
    const clock = new ManualClock();
    const guard = new TurnGuard('T', new AbortController().signal, 1_000, clock);
    guard.arm();
    guard.dispose();
    expect(guard.signal.aborted).toBe(true);
    expect(guard.stopError()).toBeUndefined();
    expect(clock.pendingTimers).toBe(0);
  });
});
