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
   * The relay to dial after `index`, round and round, passing over those held now (`held`: every
   * one is). When every one is held, there is nowhere else to go: the one whose hold ends first, at once (after the link's
   * ordinary backoff): asked again, a relay that refused says so again, and one that was wrong or
   * lied is back. Only a relay that said a newer link for this host took over is first `verify`d:
   * true, the host stays off it until its hold ends, so two processes with one key take turns
   * slowly; false, it is dialled.
   */
  next(index: number): { index: number; verify: boolean; held: boolean } {
    const n = this.entries.length;
    const now = this.clock.now();
    let soonest: { index: number; retryAt: number; verify: boolean } | undefined;
    for (let step = 1; step <= n; step++) {
      const at = (index + step) % n;
      const standing = this.entries[at]!.standing;
      if (standing.name !== 'held' || standing.retryAt <= now) return { index: at, verify: false, held: false };
      if (!soonest || standing.retryAt < soonest.retryAt) {
        soonest = { index: at, retryAt: standing.retryAt, verify: standing.error.code === 'conflict' };
      }
    }
    return { index: soonest!.index, verify: soonest!.verify, held: true };
  }

  /**
   * The relay after `index` in turn, held or not: after a link that `index` ended right after
   * `ready`, that relay is no better than a held one, whose refusal may have been false. One held
   * because it said a newer link for this host took over is first `verify`d, as in `next`.
   */
  after(index: number): { index: number; verify: boolean; held: boolean } {
    const at = (index + 1) % this.entries.length;
    const standing = this.entries[at]!.standing;
    const held = standing.name === 'held' && standing.retryAt > this.clock.now();
    return { index: at, verify: held && standing.error.code === 'conflict', held };
  }

  /** When the relay's hold ends (now, when it is not held). */
  heldUntil(index: number): number {
    const standing = this.entries[index]!.standing;
    return standing.name === 'held' ? standing.retryAt : this.clock.now();
  }

  /** Its refusal was checked and holds: says so, keeping the hold. */
  confirm(index: number, message: string): void {
    const standing = this.entries[index]!.standing;
    if (standing.name !== 'held') return;
    this.set(index, { ...standing, error: { ...standing.error, message } });
  }
}
