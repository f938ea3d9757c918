import type { BackoffOptions, Clock, ProtocolError } from '@tether/shared-protocol';
import { backoffDelay } from '@tether/shared-protocol';
import { RELAY_HOLD_BACKOFF, RELAY_HOLD_FORGET_MS } from './link-limits.js';

/**
 * Where one relay of the host's list stands:
 * - `standby`: not in use; the link moves to it when the one in use drops;
 * - `connecting`, `linked`: the link is dialling it, or on it;
 * - `failed`: its last dial or link failed (down, dropped): tried again in turn, after the backoff;
 * - `held`: it refused this host (its signature, its version, a newer link with this key, another
 *   origin than its URL): its word is about itself only, so the link goes on with the others, and
 *   tries it again at `retryAt`, each refusal in a row waiting longer. Nothing but the person stops
 *   the link for good.
 */
export type RelayStanding =
  | { name: 'standby' | 'connecting' | 'linked' }
  | { name: 'failed'; error: ProtocolError }
  | { name: 'held'; error: ProtocolError; retryAt: number };

export interface RelayEntry {
  readonly url: string;
  standing: RelayStanding;
  /** When it reached that standing. */
  since: number;
  /** Refusals in a row, without a link that lasted RELAY_HOLD_FORGET_MS in between. */
  holds: number;
  /** When the link on it came up (while it is linked). */
  linkedAt: number;
}

/**
 * The relays a host links through, each with its own standing: which one to dial next, and which
 * to pass over for now. A relay's refusal holds that relay alone.
 */
export class RelayRoster {
  readonly entries: RelayEntry[];

  constructor(
    urls: readonly string[],
    private readonly clock: Clock,
    private readonly jitter: () => number,
    private readonly holdBackoff: BackoffOptions = RELAY_HOLD_BACKOFF,
  ) {
    const now = clock.now();
    this.entries = urls.map((url) => ({ url, standing: { name: 'standby' }, since: now, holds: 0, linkedAt: 0 }));
  }

  set(index: number, standing: RelayStanding): void {
    const entry = this.entries[index]!;
    const now = this.clock.now();
    if (entry.standing.name === 'linked' && now - entry.linkedAt >= RELAY_HOLD_FORGET_MS) entry.holds = 0;
    if (standing.name === 'linked') entry.linkedAt = now;
    entry.standing = standing;
    entry.since = now;
  }

  /** The relay refused the host: held until a backoff that grows with each refusal in a row. */
  hold(index: number, error: ProtocolError): number {
    const entry = this.entries[index]!;
    const wait = backoffDelay(entry.holds, this.jitter(), this.holdBackoff);
    this.set(index, { name: 'held', error, retryAt: this.clock.now() + wait });
    entry.holds++;
    return wait;
  }

  /**
   * The relay to dial after `index`, round and round, passing over those held now; when every one
   * is held, the one whose hold ends first (with when it ends).
   */
  next(index: number): { index: number; notBefore: number } {
    const n = this.entries.length;
    const now = this.clock.now();
    let soonest = { index: (index + 1) % n, notBefore: Infinity };
    for (let step = 1; step <= n; step++) {
      const at = (index + step) % n;
      const standing = this.entries[at]!.standing;
      if (standing.name !== 'held' || standing.retryAt <= now) return { index: at, notBefore: now };
      if (standing.retryAt < soonest.notBefore) soonest = { index: at, notBefore: standing.retryAt };
    }
    return soonest;
  }
}
