/**
 * Reconnect delays: exponential from `baseMs` to `maxMs`, each drawn between half and all of the
 * step ("equal jitter"), so that many phones waking at once do not reconnect in lockstep.
 */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** `jitter` is a number in [0, 1). */
export function backoffDelay(attempt: number, jitter: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const step = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + (step / 2) * jitter);
}
