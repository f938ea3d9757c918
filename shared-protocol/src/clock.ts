/** Time, injected wherever behaviour depends on it (timeouts, backoff, expiry, replay windows). */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export interface TimerHandle {
  readonly __timer: unique symbol;
}

/** Browsers return a number and Node a Timeout object from setTimeout; both are opaque here. */
const timers = globalThis as unknown as {
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
};

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => timers.setTimeout(callback, ms),
  clearTimeout: (handle) => timers.clearTimeout(handle),
};

/** Calls `callback` every `ms` on `clock` until the returned function is called. */
export function every(clock: Clock, ms: number, callback: () => void): () => void {
  let handle: TimerHandle | undefined;
  let stopped = false;
  const arm = () => {
    handle = clock.setTimeout(() => {
      if (stopped) return;
      callback();
      if (!stopped) arm();
    }, ms);
  };
  arm();
  return () => {
    stopped = true;
    if (handle !== undefined) clock.clearTimeout(handle);
  };
}
