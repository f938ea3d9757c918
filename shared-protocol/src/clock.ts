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

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms) as TimerHandle,
  clearTimeout: (handle) => clearTimeout(handle),
};
