import type { Clock, TimerHandle } from '../clock.js';
import type { ProtocolError, Result } from '../errors.js';
import type { Watch } from './session-watches.js';

/**
 * `sessions.watch` calls one connection has out at once: half of what a host answers at once on a
 * connection (32 requests in progress; past that it answers `busy`), so a device following its
 * 64 sessions asks for them in turn and leaves room for the person's own calls.
 */
export const MAX_WATCH_CALLS = 16;
/** Milliseconds before a watch the host answered `busy` (other calls filled it) is asked for again. */
export const WATCH_BUSY_RETRY_MS = 250;

export interface WatchSubscriberDeps {
  clock: Clock;
  /** Sends `sessions.watch`; resolves with the host's answer (`disconnected` if the connection ends). */
  watch(params: { id: string; after: number; tail?: number }): Promise<Result<unknown>>;
  /** The watch the client holds for a session now (a call for one since dropped is not made). */
  current(sessionId: string): Watch | undefined;
  /** The host refused a watch for good (the session is gone, the scope is missing). */
  refused(sessionId: string, error: ProtocolError): void;
}

/** Asks the host for each watched session's events, at most MAX_WATCH_CALLS at a time. */
export class WatchSubscriber {
  private readonly waiting = new Map<string, Watch>();
  /** Watches the host answered `busy`, asked for again together after WATCH_BUSY_RETRY_MS. */
  private readonly retryWaiting = new Map<string, Watch>();
  private inFlight = 0;
  private retry: TimerHandle | undefined;

  constructor(private readonly deps: WatchSubscriberDeps) {}

  /** Asks for `watch`'s events from its `lastSeq`, as soon as a call is free. */
  subscribe(sessionId: string, watch: Watch): void {
    this.waiting.set(sessionId, watch);
    this.pump();
  }

  /** The connection ended: nothing waiting is asked for on it (every watch is asked for again on the next). */
  reset(): void {
    this.waiting.clear();
    this.retryWaiting.clear();
    if (this.retry !== undefined) this.deps.clock.clearTimeout(this.retry);
    this.retry = undefined;
  }

  private pump(): void {
    for (const [sessionId, watch] of this.waiting) {
      if (this.inFlight >= MAX_WATCH_CALLS) return;
      this.waiting.delete(sessionId);
      if (this.deps.current(sessionId) !== watch) continue;
      this.inFlight++;
      const params = { id: sessionId, after: watch.lastSeq, ...(watch.tail !== undefined ? { tail: watch.tail } : {}) };
      void this.deps.watch(params).then((result) => {
        this.inFlight--;
        if (!result.ok && this.deps.current(sessionId) === watch) {
          if (result.error.code === 'busy') this.later(sessionId, watch);
          else if (result.error.code !== 'disconnected') this.deps.refused(sessionId, result.error);
        }
        this.pump();
      });
    }
  }

  /** Asks for a watch the host was too busy for again, after a pause, without holding a call. */
  private later(sessionId: string, watch: Watch): void {
    this.retryWaiting.set(sessionId, watch);
    this.retry ??= this.deps.clock.setTimeout(() => {
      this.retry = undefined;
      for (const [id, w] of this.retryWaiting) this.waiting.set(id, w);
      this.retryWaiting.clear();
      this.pump();
    }, WATCH_BUSY_RETRY_MS);
  }
}
