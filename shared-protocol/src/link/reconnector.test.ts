import { describe, expect, it } from 'vitest';
import { ManualClock } from '../testing/manual-clock.js';
import { backoffDelay } from './backoff.js';
import { Reconnector, jitterFrom } from './reconnector.js';

const BACKOFF = { baseMs: 1000, maxMs: 8000 };

function setup(jitter = () => 0) {
  const clock = new ManualClock(0);
  const reconnector = new Reconnector({ clock, jitter, backoff: BACKOFF });
  let dials = 0;
  const redial = () => {
    dials++;
    reconnector.dialling();
  };
  return { clock, reconnector, redial, dials: () => dials };
}

describe('Reconnector', () => {
  it('waits a doubling step after each failure, capped, and dials when it is due', () => {
    const { clock, reconnector, redial, dials } = setup();
    expect(reconnector.phase).toBe('idle');
    expect(reconnector.dialling()).toBe(0);
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const plan = reconnector.retry(redial)!;
      expect(plan.attempt).toBe(i);
      expect(plan.retryAt).toBe(clock.now() + plan.delayMs);
      expect(reconnector.phase).toBe('waiting');
      waits.push(plan.delayMs);
      clock.advance(plan.delayMs - 1);
      expect(dials()).toBe(i);
      clock.advance(1);
      expect(dials()).toBe(i + 1);
      expect(reconnector.phase).toBe('connecting');
    }
    // Equal jitter at 0: half of 1, 2, 4, 8, 8 s.
    expect(waits).toEqual([500, 1000, 2000, 4000, 4000]);
  });

  it('draws each delay between half and all of its step', () => {
    const { reconnector, redial } = setup(() => 0.5);
    reconnector.dialling();
    expect(reconnector.retry(redial)!.delayMs).toBe(750);
    expect(backoffDelay(3, 0.5, BACKOFF)).toBe(6000);
  });

  it('waits the whole step, doubling up to the cap, without jitter', () => {
    const steady = { ...BACKOFF, jitter: 'none' as const };
    expect([0, 1, 2, 3, 4].map((attempt) => backoffDelay(attempt, 0.9, steady))).toEqual([
      1000, 2000, 4000, 8000, 8000,
    ]);
  });

  it('starts from the shortest step again once the link opened, or on reset', () => {
    const { clock, reconnector, redial } = setup();
    reconnector.dialling();
    clock.advance(reconnector.retry(redial)!.delayMs);
    clock.advance(reconnector.retry(redial)!.delayMs);
    expect(reconnector.attempt).toBe(2);
    reconnector.opened();
    expect(reconnector.phase).toBe('open');
    expect(reconnector.retry(redial)!.attempt).toBe(0);
    reconnector.reset();
    expect(reconnector.attempt).toBe(0);
  });

  it('with stableMs, forgets the failures once the link has lasted, however the owner dials next', () => {
    const clock = new ManualClock(0);
    const reconnector = new Reconnector({ clock, jitter: () => 0, backoff: BACKOFF, stableMs: 5_000 });
    const redial = () => void reconnector.dialling();
    reconnector.dialling();
    for (let i = 0; i < 3; i++) clock.advance(reconnector.retry(redial)!.delayMs);
    // Open, but not long: a drop counts as one more failure.
    reconnector.opened();
    clock.advance(4_999);
    expect(reconnector.retry(redial)!.attempt).toBe(3);
    clock.advance(4_000);
    // Open long enough, then the owner dials at once (another server) and that dial fails.
    reconnector.opened();
    clock.advance(5_000);
    reconnector.dialling();
    expect(reconnector.retry(redial)!.attempt).toBe(0);
  });

  it('wakes a wait at once, and only a wait', () => {
    const { clock, reconnector, redial, dials } = setup();
    expect(reconnector.wake()).toBe(false);
    reconnector.dialling();
    reconnector.retry(redial);
    expect(reconnector.wake()).toBe(true);
    expect(dials()).toBe(1);
    expect(clock.pendingTimers).toBe(0);
    expect(reconnector.wake()).toBe(false);
  });

  it('keeps one wait: a second retry replaces the first', () => {
    const { clock, reconnector, redial, dials } = setup();
    reconnector.dialling();
    reconnector.retry(redial);
    reconnector.retry(redial);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(60_000);
    expect(dials()).toBe(1);
  });

  it('never dials again once stopped', () => {
    const { clock, reconnector, redial, dials } = setup();
    reconnector.dialling();
    reconnector.retry(redial);
    reconnector.stop();
    clock.advance(60_000);
    expect(dials()).toBe(0);
    expect(reconnector.phase).toBe('stopped');
    expect(reconnector.retry(redial)).toBeUndefined();
    expect(reconnector.wake()).toBe(false);
  });

  it('takes its jitter from random bytes, one byte a draw', () => {
    const drawn: number[] = [];
    const jitter = jitterFrom((length) => {
      drawn.push(length);
      return new Uint8Array([128]);
    });
    expect(jitter()).toBe(0.5);
    expect(drawn).toEqual([1]);
  });
});
