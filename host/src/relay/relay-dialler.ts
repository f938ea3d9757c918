import type { ProtocolError } from '@tether/shared-protocol';
import { Reconnector, jitterFrom, protocolError } from '@tether/shared-protocol';
import { LINK_STABLE_MS } from './link-limits.js';
import type { RelayLinkOptions, RelayLinkState } from './link-types.js';
import type { RelayStanding } from './relay-roster.js';
import { RelayRoster } from './relay-roster.js';
import { duration, holdMessage } from './relay-words.js';

/** What the dialler needs of the link it dials for. */
export interface DiallerOwner {
  state(): RelayLinkState;
  /** Whether a socket is dialled or up now. */
  busy(): boolean;
  /** Dials the relay at the dialler's `url`, now. */
  dial(): void;
  setState(state: RelayLinkState): void;
}

type DiallerOptions = Pick<RelayLinkOptions, 'urls' | 'clock' | 'random' | 'backoff' | 'onHeld' | 'verify'>;

/**
 * Which relay the link dials, and when: the relays' list and where the link is in it, each relay's
 * standing (`RelayRoster`), and the backoff between attempts (`Reconnector`). Every drop and failed
 * dial moves to the next relay in turn that is not held; a relay's refusal holds that relay alone.
 */
export class RelayDialler {
  readonly reconnector: Reconnector;
  readonly roster: RelayRoster;
  /** Which of `options.urls` the link is dialling or on. */
  private index = 0;

  constructor(
    private readonly options: DiallerOptions,
    private readonly owner: DiallerOwner,
  ) {
    const jitter = jitterFrom(options.random);
    this.reconnector = new Reconnector({
      clock: options.clock,
      jitter,
      stableMs: LINK_STABLE_MS,
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
    this.roster = new RelayRoster(options.urls, options.clock, jitter);
  }

  /** The relay the link is on, or dialling. */
  get url(): string {
    return this.options.urls[this.index]!;
  }

  /** Sets the standing of the relay the link is on, or dialling. */
  mark(standing: RelayStanding): void {
    this.roster.set(this.index, standing);
  }

  /** The relay in use refused this host: it is held for a while, and the link goes on with the
   * others (at once, to one not held; after the backoff, if every one is). */
  passOver(error: ProtocolError): void {
    const waitMs = this.roster.hold(this.index, error);
    this.options.onHeld?.(this.roster.entries[this.index]!);
    const next = this.roster.next(this.index);
    const said = protocolError(error.code, holdMessage(error.message, waitMs, this.options.urls.length > 1));
    if (next.held || this.owner.state().name === 'stopped') return this.retry(said);
    // Another server, not held: its word is its own, so it is dialled without waiting.
    this.index = next.index;
    this.owner.dial();
  }

  /** The URL in use is not a relay URL: it is held, and the link goes on after the backoff. */
  skip(error: ProtocolError): void {
    this.roster.hold(this.index, error);
    this.retry(error);
  }

  /** A stable link is asked to link again: the next relay in turn, or the same, dialled now. */
  relinkNow(): void {
    this.reconnector.reset();
    this.index = this.roster.next(this.index).index;
    this.owner.dial();
  }

  /** After a drop, a failed dial or a refusal: the next relay in turn that is not held, after the
   * backoff (a relay that said it was replaced, checked first when every relay is held). After a
   * link that ended right after `ready` (`shortLived`), the next in turn even if it is held. */
  retry(error: ProtocolError, shortLived = false): void {
    if (this.owner.state().name === 'stopped') return;
    const next = shortLived ? this.roster.after(this.index) : this.roster.next(this.index);
    this.index = next.index;
    this.wait(error, () => (next.verify ? void this.verify(next.index) : this.owner.dial()));
  }

  /** Waits out the backoff (at least `atLeastMs`), saying why, then `then`, unless stopped meanwhile. */
  private wait(error: ProtocolError, then: () => void, atLeastMs = 0): void {
    const plan = this.reconnector.retry(() => {
      if (this.owner.state().name === 'waiting') then();
    }, atLeastMs);
    if (plan) this.owner.setState({ name: 'waiting', attempt: plan.attempt, retryAt: plan.retryAt, error });
  }

  /**
   * Every relay is held and this one said a newer link for this host took over: is one up there?
   * If so (another `tether start` with this host's key), the host stays off it until its hold ends
   * and says so; if not, or if the relay does not say, it is dialled now.
   */
  private async verify(index: number): Promise<void> {
    const url = this.options.urls[index]!;
    const answer = this.options.verify ? await this.options.verify(url) : 'unknown';
    if (this.owner.state().name !== 'waiting' || this.index !== index || this.owner.busy()) return;
    if (answer !== 'live') return this.owner.dial();
    const holdMs = this.roster.heldUntil(index) - this.options.clock.now();
    const error = protocolError(
      'conflict',
      `another link for this host is up at ${url}: another \`tether start\` with this host's key is running; this one waits, and links there again in ${duration(holdMs)}`,
    );
    this.roster.confirm(index, error.message);
    this.options.onHeld?.(this.roster.entries[index]!);
    this.wait(error, () => this.owner.dial(), holdMs);
  }
}
