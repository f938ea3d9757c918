import type { Clock, TimerHandle } from '../clock.js';

/**
 * A clock that moves only when told. Timers fire in due order during `advance`, each seeing
 * `now()` at its due time; callbacks that schedule more timers within the window run too.
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private readonly timers = new Map<number, { due: number; callback: () => void }>();

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { due: this.current + Math.max(0, ms), callback });
    return id as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as unknown as number);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      let next: [number, { due: number; callback: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].due <= end && (!next || entry[1].due < next[1].due)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.current = next[1].due;
      next[1].callback();
    }
    this.current = end;
  }

  set(time: number): void {
    this.current = time;
  }

  get pendingTimers(): number {
    return this.timers.size;
  }
}
