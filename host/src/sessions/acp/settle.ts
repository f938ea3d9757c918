import type { Clock, TimerHandle } from '@tether/shared-protocol';

export type Settled<T> =
  | { kind: 'value'; value: T }
  | { kind: 'error'; error: unknown }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'ended'; why: string };

/**
 * What happens first: `promise` settles, `ms` pass on `clock`, `signal` aborts, or `ended` (a
 * process that went away) resolves. Never rejects; cleans up its timer and listener.
 */
export function settle<T>(
  promise: Promise<T>,
  options: { clock?: Clock; ms?: number; signal?: AbortSignal; ended?: Promise<string> },
): Promise<Settled<T>> {
  return new Promise((resolve) => {
    let timer: TimerHandle | undefined;
    let done = false;
    const finish = (outcome: Settled<T>) => {
      if (done) return;
      done = true;
      if (timer !== undefined) options.clock?.clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'aborted' });
    promise.then(
      (value) => finish({ kind: 'value', value }),
      (error: unknown) => finish({ kind: 'error', error }),
    );
    void options.ended?.then((why) => finish({ kind: 'ended', why }));
    if (options.clock && options.ms !== undefined)
      timer = options.clock.setTimeout(() => finish({ kind: 'timeout' }), options.ms);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
