/**
 * Waits between tries: exponential from `baseMs` to `maxMs`. With "equal jitter" (the default) each
 * wait is drawn between half and all of its step, so that many clients failing at once do not come
 * back in lockstep, yet none comes back at once; with `none` the wait is the step itself.
 */
export type BackoffJitter = 'equal' | 'none';

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** `equal` unless given. */
  jitter?: BackoffJitter;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** The wait before try `attempt + 1` (attempt 0 waits about `baseMs`); `random` is in [0, 1) and
 * unused without jitter. */
export function backoffDelay(attempt: number, random: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const step = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(attempt, 30));
  if (options.jitter === 'none') return step;
  return Math.round(step / 2 + (step / 2) * random);
}
