import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { MAX_WATCHED_SESSIONS } from '../limits.js';
import type { SessionEvent, TetherEvent } from '../rpc/events.js';
import { isSessionEvent } from '../rpc/events.js';

export interface Watch {
  /** The last sequence number delivered to listeners. */
  lastSeq: number;
  /** Replay at most this many of the newest events on each (re)subscribe: see `DeviceClient.watch`. */
  tail?: number;
}

export interface SessionWatchHooks {
  /** Asks the host for a session's events again, from what the watch holds. */
  subscribe(sessionId: string, watch: Watch): void;
  /** An event dropped as already delivered (or a stale skip). */
  duplicate(): void;
}

/**
 * The sessions a device client follows, and the order it keeps on each: every event delivered
 * exactly once and in sequence, across reconnects. Bounded by MAX_WATCHED_SESSIONS.
 */
export class SessionWatches {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly hooks: SessionWatchHooks) {}

  /** The new watch, or undefined when the session was watched already (its `lastSeq` moved up to `after`). */
  add(sessionId: string, after: number, tail: number | undefined): Result<Watch | undefined> {
    const existing = this.watches.get(sessionId);
    if (existing) {
      if (after > existing.lastSeq) existing.lastSeq = after;
      return ok(undefined);
    }
    if (this.watches.size >= MAX_WATCHED_SESSIONS) return fail('busy', 'watching too many sessions');
    const watch: Watch = { lastSeq: after, ...(tail !== undefined ? { tail } : {}) };
    this.watches.set(sessionId, watch);
    return ok(watch);
  }

  delete(sessionId: string): boolean {
    return this.watches.delete(sessionId);
  }

  get(sessionId: string): Watch | undefined {
    return this.watches.get(sessionId);
  }

  entries(): IterableIterator<[string, Watch]> {
    return this.watches.entries();
  }

  /** The event to deliver (a skip rewritten to start where delivery stands), or undefined to drop it. */
  accept(event: TetherEvent): TetherEvent | undefined {
    if (isSessionEvent(event) && !this.acceptSequenced(event)) return undefined;
    if (event.type === 'watch.skipped') return this.acceptSkip(event);
    return event;
  }

  /**
   * A tail watch jumps ahead: what lies between the last delivered event and the skip's end is
   * left for the caller to page in, and the stream goes on after it. A skip that names nothing
   * past what was delivered (a stale one) is dropped.
   */
  private acceptSkip(event: Extract<TetherEvent, { type: 'watch.skipped' }>): TetherEvent | undefined {
    const watch = this.watches.get(event.sessionId);
    if (!watch || watch.tail === undefined || event.to <= watch.lastSeq || event.after > watch.lastSeq) {
      this.hooks.duplicate();
      return undefined;
    }
    const after = watch.lastSeq;
    watch.lastSeq = event.to;
    return { ...event, after };
  }

  /** Applies the per-session order: drop what was delivered, resubscribe on a gap. */
  private acceptSequenced(event: SessionEvent): boolean {
    const watch = this.watches.get(event.sessionId);
    if (!watch) return event.type === 'session.updated';
    if (event.seq <= watch.lastSeq) {
      this.hooks.duplicate();
      return false;
    }
    if (event.seq > watch.lastSeq + 1) {
      // Should not happen with a correct host; recover by asking again from what we hold.
      this.hooks.subscribe(event.sessionId, watch);
      return false;
    }
    watch.lastSeq = event.seq;
    return true;
  }
}
