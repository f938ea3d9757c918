import type { Clock } from './clock.js';
import { HANDSHAKE_CLOCK_WINDOW_MS, REPLAY_CACHE_ENTRIES } from './limits.js';

export type ReplayVerdict = 'fresh' | 'replayed' | 'full';

/** The share of the cache one owner (a device) may hold: 1/16. Enough for a device reconnecting
 * several times a second for the whole lifetime of an entry; one device flooding the host fills
 * only its own share and is refused as `busy`, while every other device still gets in. */
const OWNER_SHARE = 16;

/**
 * Remembers first messages (handshakes, one-shot calls) for as long as their timestamp could still
 * be accepted, so that a recorded message sent again is refused. Each entry lives for twice the
 * clock window from when it was seen: a timestamp can be at most one window ahead of the clock,
 * and stays acceptable for one more window after that.
 *
 * Bounded: when every slot holds a live entry, or the owner's share is full, `check` answers
 * `full` and the caller refuses the message as `busy`; forgetting a live entry would let its
 * replay through.
 */
export class ReplayCache {
  private readonly entries = new Map<string, { expiresAt: number; owner: string }>();
  private readonly perOwner = new Map<string, number>();
  private readonly maxPerOwner: number;

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly maxEntries = REPLAY_CACHE_ENTRIES,
    private readonly lifetimeMs = 2 * HANDSHAKE_CLOCK_WINDOW_MS,
  ) {
    this.maxPerOwner = Math.max(1, Math.floor(maxEntries / OWNER_SHARE));
  }

  /** `owner`: who made the message (the device id it names), for the per-owner share. */
  check(key: string, owner = ''): ReplayVerdict {
    const now = this.clock.now();
    // Entries are inserted in time order with one fixed lifetime, so expired ones are at the front.
    for (const [k, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.entries.delete(k);
      const left = (this.perOwner.get(entry.owner) ?? 1) - 1;
      if (left > 0) this.perOwner.set(entry.owner, left);
      else this.perOwner.delete(entry.owner);
    }
    if (this.entries.has(key)) return 'replayed';
    if (this.entries.size >= this.maxEntries) return 'full';
    const held = this.perOwner.get(owner) ?? 0;
    if (held >= this.maxPerOwner) return 'full';
    this.entries.set(key, { expiresAt: now + this.lifetimeMs, owner });
    this.perOwner.set(owner, held + 1);
    return 'fresh';
  }

  get size(): number {
    return this.entries.size;
  }
}
