import type { Clock } from './clock.js';
import { HANDSHAKE_CLOCK_WINDOW_MS, REPLAY_CACHE_ENTRIES } from './limits.js';

export type ReplayVerdict = 'fresh' | 'replayed' | 'full';

/**
 * Remembers first messages (handshakes, one-shot calls) for as long as their timestamp could still
 * be accepted, so that a recorded message sent again is refused. Each entry lives for twice the
 * clock window from when it was seen: a timestamp can be at most one window ahead of the clock,
 * and stays acceptable for one more window after that.
 *
 * Bounded: when every slot holds a live entry, `check` answers `full` and the caller refuses the
 * message as `busy`; forgetting a live entry would let its replay through.
 */
export class ReplayCache {
  private readonly entries = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries = REPLAY_CACHE_ENTRIES,
    private readonly lifetimeMs = 2 * HANDSHAKE_CLOCK_WINDOW_MS,
  ) {}

  check(key: string): ReplayVerdict {
    const now = this.clock.now();
    // Entries are inserted in time order with one fixed lifetime, so expired ones are at the front.
    for (const [k, expiresAt] of this.entries) {
      if (expiresAt > now) break;
      this.entries.delete(k);
    }
    if (this.entries.has(key)) return 'replayed';
    if (this.entries.size >= this.maxEntries) return 'full';
    this.entries.set(key, now + this.lifetimeMs);
    return 'fresh';
  }

  get size(): number {
    return this.entries.size;
  }
}
