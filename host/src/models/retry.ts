import { backoffDelay, systemClock, type Clock } from '@tether/shared-protocol';
import { ProviderError, type ModelEvent, type ModelProvider, type ModelRequest } from './types.js';

/** Tries per turn, the first included. */
export const DEFAULT_MAX_ATTEMPTS = 4;
/** The first wait, in milliseconds; each later one doubles, up to DEFAULT_MAX_DELAY_MS. */
export const DEFAULT_BASE_DELAY_MS = 1_000;
/** The longest wait, in milliseconds, also the cap on an API's Retry-After. With 4 attempts the
 * backoff alone stays under 1 + 2 + 4 = 7 s, so the cap only bites on a long Retry-After. */
export const DEFAULT_MAX_DELAY_MS = 30_000;

export interface RetryNotice {
  /** The attempt that just failed, from 1. */
  attempt: number;
  maxAttempts: number;
  /** How long until the next attempt, in milliseconds. */
  delayMs: number;
  error: ProviderError;
}

export interface RetryOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  clock?: Clock;
  /** In [0, 1), for jitter. Injected so tests get exact delays. */
  random?: () => number;
  /** Called before each wait; the loop turns it into a notice in the transcript. */
  onRetry?: (notice: RetryNotice) => void;
}

/**
 * A provider that tries a turn again when it failed with a retryable ProviderError (429, 5xx,
 * network) before yielding any event. Once an event was yielded the error passes through: the
 * loop has already shown that output, and a second attempt would show it twice.
 */
export function withRetry(provider: ModelProvider, options: RetryOptions = {}): ModelProvider {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;

  async function* stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    for (let attempt = 1; ; attempt++) {
      let yielded = false;
      try {
        for await (const event of provider.stream(request)) {
          yielded = true;
          yield event;
        }
        return;
      } catch (error) {
        const retry =
          !yielded &&
          error instanceof ProviderError &&
          error.retryable &&
          attempt < maxAttempts &&
          !request.signal.aborted;
        if (!retry) throw error;
        const delayMs = retryDelayMs(attempt, error, { baseDelayMs, maxDelayMs, random });
        options.onRetry?.({ attempt, maxAttempts, delayMs, error });
        await sleep(clock, delayMs, request.signal);
      }
    }
  }

  return { spec: provider.spec, stream };
}

/**
 * The wait before attempt `failedAttempt + 1`: the API's Retry-After when it gave one, else
 * exponential backoff with "equal jitter" (between half and all of the step), so clients that
 * failed together do not all come back together, yet none comes back at once. Both capped.
 */
export function retryDelayMs(
  failedAttempt: number,
  error: ProviderError,
  options: { baseDelayMs: number; maxDelayMs: number; random: () => number },
): number {
  if (error.retryAfterMs !== undefined) return Math.min(Math.max(0, error.retryAfterMs), options.maxDelayMs);
  return backoffDelay(failedAttempt - 1, options.random(), { baseMs: options.baseDelayMs, maxMs: options.maxDelayMs });
}

/** Resolves after `ms` on the clock; rejects with an aborted ProviderError when the signal fires first. */
function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new ProviderError('aborted while waiting to retry', 'aborted'));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(new ProviderError('aborted while waiting to retry', 'aborted'));
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
